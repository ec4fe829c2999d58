// steprdu compare <testbench> [knob=value ...] [--hw ..] [--set ..] [--json]
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "testbenches/Runner.h"
#include "tools/Commands.h"
#include "tools/Options.h"

namespace po = boost::program_options;

namespace steprdu::cli {

int cmdCompare(const Args& args) {
    tb::RunRequest req;
    Flags f;
    po::options_description opts("compare options");
    addFlags(opts, f, true, false);
    addHardwareOptions(opts, req.hw, req.sets);
    std::vector<std::string> positional;
    if (parseOrHelp("compare", args, opts, &positional, f,
                    "Run the roofline and the cycle backend on the same graph, side by side."))
        return 0;
    takeTestbench("compare", positional, req);
    req.progress = [](std::int64_t cycle, double wall) {
        std::cerr << fmt::format("steprdu: cycle {} after {:.0f} s\n", cycle, wall);
    };
    const nlohmann::json j = tb::compareBackends(req);
    if (f.json) {
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    const auto &r = j["roofline"], &c = j["cycle"], &b = j["bounds"];
    std::cout << fmt::format("{} on {}  {}\n", j["testbench"].get<std::string>(), j["hw"].get<std::string>(),
                             j["params"].dump());
    std::cout << fmt::format("  {:28} {:>14} {:>14}\n", "", "roofline", "cycle-level");
    std::cout << fmt::format("  {:28} {:>14} {:>14}   ratio {:.3f}\n", "cycles",
                             r["cycles"].get<std::int64_t>(), c["cycles"].get<std::int64_t>(),
                             j["cycle_over_roofline"].get<double>());
    std::cout << fmt::format("  {:28} {:>14} {:>14}\n", "off-chip bytes (simulated)",
                             r["simulated_off_chip_bytes"].get<std::int64_t>(),
                             c["simulated_off_chip_bytes"].get<std::int64_t>());
    std::cout << fmt::format("  {:28} {:>14.3f} {:>14.3f}\n", "wall seconds", r["wall_seconds"].get<double>(),
                             c["wall_seconds"].get<double>());
    const double cc = c["cycles"].get<double>();
    auto ratio = [&](double bound) { return bound > 0 ? cc / bound : 0.0; };
    std::cout << fmt::format("  lower bounds (cycle-level is {:.2f}x / {:.2f}x / {:.2f}x of them):\n",
                             ratio(b["memory_cycles"].get<double>()),
                             ratio(b["compute_cycles_assigned"].get<double>()),
                             ratio(b["compute_cycles_chip"].get<double>()));
    std::cout << fmt::format("    off-chip bytes / peak {:.0f} B/cycle       {:>14.0f}\n",
                             b["memory_peak_bytes_per_cycle"].get<double>(),
                             b["memory_cycles"].get<double>());
    std::cout << fmt::format("    FLOPs / ({:.0f} PCUs x {:.0f} FLOP/cycle)    {:>14.0f}\n",
                             b["pcus_assigned"].get<double>(), b["pcu_peak_flops_per_cycle"].get<double>(),
                             b["compute_cycles_assigned"].get<double>());
    std::cout << fmt::format("    FLOPs / the chip's peak                {:>14.0f}\n",
                             b["compute_cycles_chip"].get<double>());
    std::cout << "  stall cycles (summed over operators), by cause and unit kind:\n";
    for (const auto& [cause, kinds] : j["stall_cycles"].items()) {
        std::string line;
        for (const auto& [kind, v] : kinds.items())
            line += fmt::format("  {} {:.0f}", kind, v.get<double>());
        std::cout << fmt::format("    {:8}{}\n", cause, line);
    }
    std::cout << "  busiest switches (max link utilization):";
    for (const auto& s : j["busiest_switches"])
        std::cout << fmt::format(" {} {:.2f}", s["path"].get<std::string>(), s["value"].get<double>());
    std::cout << "\n  busiest memory channels (data bus utilization):";
    for (const auto& s : j["busiest_memory_channels"])
        std::cout << fmt::format(" {} {:.2f}", s["path"].get<std::string>(), s["value"].get<double>());
    std::cout << "\n";
    return 0;
}

} // namespace steprdu::cli
