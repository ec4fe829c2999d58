// steprdu compare <testbench> [knob=value ...] [--hw ..] [--set ..] [--out DIR] [--json]
#include <iostream>
#include <sstream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "testbenches/Runner.h"
#include "tools/Commands.h"
#include "tools/Options.h"

namespace po = boost::program_options;

namespace steprdu::cli {

namespace {

// The comparison as text: both backends' headline numbers, the lower bounds, and where the cycles went.
std::string report(const nlohmann::json& j) {
    std::ostringstream o;
    const auto &r = j["roofline"], &c = j["cycle"], &b = j["bounds"];
    o << fmt::format("{} on {}  {}\n", j["testbench"].get<std::string>(), j["hw"].get<std::string>(),
                     j["params"].dump());
    o << fmt::format("  {:28} {:>14} {:>14}\n", "", "roofline", "cycle-level");
    o << fmt::format("  {:28} {:>14} {:>14}   ratio {:.3f}\n", "cycles", r["cycles"].get<std::int64_t>(),
                     c["cycles"].get<std::int64_t>(), j["cycle_over_roofline"].get<double>());
    o << fmt::format("  {:28} {:>14} {:>14}\n", "off-chip bytes (simulated)",
                     r["simulated_off_chip_bytes"].get<std::int64_t>(),
                     c["simulated_off_chip_bytes"].get<std::int64_t>());
    o << fmt::format("  {:28} {:>14.3f} {:>14.3f}\n", "wall seconds", r["wall_seconds"].get<double>(),
                     c["wall_seconds"].get<double>());
    const double cc = c["cycles"].get<double>();
    auto ratio = [&](double bound) { return bound > 0 ? cc / bound : 0.0; };
    o << fmt::format("  lower bounds (cycle-level is {:.2f}x / {:.2f}x / {:.2f}x of them):\n",
                     ratio(b["memory_cycles"].get<double>()),
                     ratio(b["compute_cycles_assigned"].get<double>()),
                     ratio(b["compute_cycles_chip"].get<double>()));
    o << fmt::format("    off-chip bytes / peak {:.0f} B/cycle       {:>14.0f}\n",
                     b["memory_peak_bytes_per_cycle"].get<double>(), b["memory_cycles"].get<double>());
    o << fmt::format("    FLOPs / ({:.0f} PCUs x {:.0f} FLOP/cycle)    {:>14.0f}\n",
                     b["pcus_assigned"].get<double>(), b["pcu_peak_flops_per_cycle"].get<double>(),
                     b["compute_cycles_assigned"].get<double>());
    o << fmt::format("    FLOPs / the chip's peak                {:>14.0f}\n",
                     b["compute_cycles_chip"].get<double>());
    if (!j["stall_cycles"].empty()) {
        o << "  stall cycles (summed over operators), by cause and unit kind:\n";
        for (const auto& [cause, kinds] : j["stall_cycles"].items()) {
            std::string line;
            for (const auto& [kind, v] : kinds.items())
                line += fmt::format("  {} {:.0f}", kind, v.get<double>());
            o << fmt::format("    {:8}{}\n", cause, line);
        }
    }
    if (!j["last_operators"].empty()) {
        o << "  last operators to finish: share of their finish cycle busy / waiting on input, output, "
             "memory:\n";
        for (const auto& op : j["last_operators"])
            o << fmt::format(
                "    {:44} {:>10.0f}  busy {:3.0f}%  input {:3.0f}%  output {:3.0f}%  memory {:3.0f}%\n",
                op["path"].get<std::string>(), op["finish_cycle"].get<double>(),
                100 * op["busy_share"].get<double>(), 100 * op["stall_input_share"].get<double>(),
                100 * op["stall_output_share"].get<double>(), 100 * op["stall_memory_share"].get<double>());
    }
    if (!j["busiest_streams"].empty()) {
        o << "  busiest streams: B/cycle needed at the roofline's pace, achieved, and its fabric lanes "
             "carry:\n";
        for (const auto& s : j["busiest_streams"])
            o << fmt::format("    {:60} {:8.1f} {:8.1f} {:6.0f} ({:.0f} lanes)\n",
                             s["path"].get<std::string>(), s["needed_bytes_per_cycle"].get<double>(),
                             s["achieved_bytes_per_cycle"].get<double>(),
                             s["lanes_bytes_per_cycle"].get<double>(), s["lanes"].get<double>());
    }
    if (j.contains("busiest_switches")) {
        o << "  busiest switches (max link utilization):";
        for (const auto& s : j["busiest_switches"])
            o << fmt::format(" {} {:.2f}", s["path"].get<std::string>(), s["value"].get<double>());
        o << "\n";
    }
    if (j.contains("busiest_memory_channels")) {
        o << "  busiest memory channels (data bus utilization):";
        for (const auto& s : j["busiest_memory_channels"])
            o << fmt::format(" {} {:.2f}", s["path"].get<std::string>(), s["value"].get<double>());
        o << "\n";
    }
    return o.str();
}

} // namespace

int cmdCompare(const Args& args) {
    tb::RunRequest req;
    Flags f;
    std::string out;
    po::options_description opts("compare options");
    addFlags(opts, f);
    addHardwareOptions(opts, req.hw, req.sets);
    opts.add_options()("out", po::value(&out), "write compare.json and compare.txt here")(
        "placement", po::value(&req.placement),
        "reuse the place and route in FILE for the cycle level (as `run --placement`)");
    std::vector<std::string> positional;
    req.progress = [](std::int64_t cycle, double wall) {
        std::cerr << fmt::format("steprdu: cycle {} after {:.0f} s\n", cycle, wall);
    };
    if (parseOrHelp("compare", args, opts, &positional, f,
                    "Run the roofline and the cycle backend on the same graph, side by side."))
        return 0;
    takeTestbench("compare", positional, req);
    if (!f.showProgress()) req.progress = nullptr;
    const nlohmann::json j = tb::compareBackends(req);
    printWarnings(j, f);
    const std::string text = report(j);
    writeOut(out, {{"compare.json", j.dump(2) + "\n"}, {"compare.txt", text}});
    std::cout << (f.json ? j.dump(2) + "\n" : text);
    return 0;
}

} // namespace steprdu::cli
