// steprdu analyze <testbench> [knob=value ...] [--json]
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "testbenches/Runner.h"
#include "testbenches/Testbench.h"
#include "tools/Commands.h"
#include "tools/Options.h"

namespace po = boost::program_options;

namespace steprdu::cli {

int cmdAnalyze(const Args& args) {
    Flags f;
    po::options_description opts("analyze options");
    addFlags(opts, f);
    std::vector<std::string> positional;
    if (parseOrHelp("analyze", args, opts, &positional, f)) return 0;
    tb::RunRequest req;
    takeTestbench("analyze", positional, req);
    const auto& tbench = tb::findTestbench(req.testbench);
    tb::Knobs knobs(tbench.name(), tbench.knobs(), req.knobs);
    auto w = tbench.build(knobs, false);
    nlohmann::json j = tb::workloadMetrics(w);
    j["testbench"] = tbench.name();
    j["params"] = w.params;
    if (f.json) {
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << fmt::format("{} {}\n", tbench.name(), w.params.dump());
    for (auto key : {"off_chip_bytes", "on_chip_bytes", "on_chip_bytes_active", "on_chip_bytes_paper",
                     "flops", "padded_flops", "graph_flops", "allocated_flops_per_cycle"})
        std::cout << fmt::format("  {:27} {}\n", key, j[key].get<std::int64_t>());
    return 0;
}

} // namespace steprdu::cli
