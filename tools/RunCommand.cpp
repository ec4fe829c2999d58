// steprdu run <testbench> [knob=value ...] [run options]
// steprdu run-graph <graph.json> [run options]: `run graph file=<graph.json>`
#include <chrono>
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "testbenches/RunDirectory.h"
#include "testbenches/Runner.h"
#include "tools/Commands.h"
#include "tools/Options.h"
#include "util/Error.h"

namespace po = boost::program_options;

namespace steprdu::cli {

namespace {

// --trace-window A:B into req.traceFrom and req.traceTo.
void parseTraceWindow(const std::string& text, tb::RunRequest& req) {
    const auto colon = text.find(':');
    std::int64_t a = -1, b = -1;
    try {
        if (colon != std::string::npos) {
            std::size_t ea = 0, eb = 0;
            a = std::stoll(text.substr(0, colon), &ea);
            b = std::stoll(text.substr(colon + 1), &eb);
            if (ea != colon || eb != text.size() - colon - 1) a = -1;
        }
    } catch (const std::exception&) {
        a = -1;
    }
    if (a < 0 || b <= a)
        throw BadInput("--trace-window: " + expectedFound("A:B with 0 <= A < B (cycles)", "'" + text + "'"));
    if (!req.trace) throw BadInput("--trace-window: " + expectedFound("--trace perfetto", "no --trace"));
    req.traceFrom = a;
    req.traceTo = b;
}

void printText(const nlohmann::json& j, const std::string& backend) {
    std::cout << fmt::format("{} ({} backend, hw {})\n", j["testbench"].get<std::string>(), backend,
                             j["hw"].get<std::string>());
    std::cout << fmt::format("  params                 {}\n", j["params"].dump());
    if (!j["cycles"].is_null())
        std::cout << fmt::format("  cycles                 {}\n", j["cycles"].get<std::int64_t>());
    std::cout << fmt::format("  off-chip bytes         {} (simulated {})\n",
                             j["off_chip_bytes"].get<std::int64_t>(),
                             j["simulated_off_chip_bytes"].get<std::int64_t>());
    std::cout << fmt::format("  on-chip bytes          {} (active {})\n",
                             j["on_chip_bytes"].get<std::int64_t>(),
                             j["on_chip_bytes_active"].get<std::int64_t>());
    std::cout << fmt::format("  flops                  {}\n", j["flops"].get<std::int64_t>());
    if (j.contains("compute_utilization"))
        std::cout << fmt::format("  utilization            compute {:.2f}%, off-chip bandwidth {:.2f}%\n",
                                 100 * j["compute_utilization"].get<double>(),
                                 100 * j["off_chip_bw_utilization"].get<double>());
    if (j.contains("units_used")) {
        const auto& u = j["units_used"];
        std::cout << fmt::format(
            "  units used             {} PCUs, {} PMUs, {} AGCUs (peak {:.0f} FLOP/cycle, "
            "{:.0f} B/cycle off-chip)\n",
            u["pcu"].get<int>(), u["pmu"].get<int>(), u["agcu"].get<int>(),
            j["peak_flops_per_cycle"].get<double>(), j["peak_offchip_bytes_per_cycle"].get<double>());
        const auto& st = j["stall_cycles"];
        std::cout << fmt::format(
            "  stall cycles           input {:.0f}, output {:.0f}, memory {:.0f} (summed over "
            "operators)\n",
            st["input"].get<double>(), st["output"].get<double>(), st["memory"].get<double>());
        std::cout << fmt::format("  on-chip link bytes     {}\n", j["onchip_link_bytes"].get<std::int64_t>());
    }
    if (j.contains("scoreboard")) {
        const auto& sb = j["scoreboard"];
        if (sb["equal"].get<bool>())
            std::cout << "  scoreboard             identical to the interpreter, bit for bit\n";
        else
            std::cout << fmt::format("  scoreboard             {} elements differ from the interpreter's{}\n",
                                     sb.value("differing_elements", std::int64_t{0}),
                                     sb.contains("max_abs_difference")
                                         ? fmt::format(" (max |difference| {:.3g} where both are finite)",
                                                       sb["max_abs_difference"].get<double>())
                                         : "");
    }
    // A direct computation on values with NaN or infinities has no finite error (JSON null).
    if (j.contains("rel_error") && j["rel_error"].is_number())
        std::cout << fmt::format("  relative error         {:.3g} (norm-wise, vs direct computation)\n",
                                 j["rel_error"].get<double>());
    std::cout << fmt::format("  wall seconds           {:.3f}", j["wall_seconds"].get<double>());
    if (j.contains("sim_cycles_per_second"))
        std::cout << fmt::format(" ({:.3g} simulated cycles per second)",
                                 j["sim_cycles_per_second"].get<double>());
    std::cout << "\n";
}

int run(const std::string& command, const Args& args) {
    tb::RunRequest req;
    Flags f;
    std::string out, trace, traceWindow;
    po::options_description opts("run options");
    addFlags(opts, f);
    opts.add_options()(
        "backend", po::value(&req.backend)->default_value(req.backend),
        "interp (functional interpreter), roofline (the published STeP simulator's timing) or cycle "
        "(the SystemC chip)")(
        "functional", po::bool_switch(&req.functional),
        "cycle backend: compute real values and compare them with the interpreter (scoreboard)")(
        "placement", po::value(&req.placement),
        "cycle backend: reuse the place and route in FILE (pnr.json from `steprdu pnr --out`, a cycle run's "
        "result.json, or a directory holding either) instead of placing anew; it must be of the same graph");
    addHardwareOptions(opts, req.hw, req.sets);
    opts.add_options()(
        "out", po::value(&out),
        "write result.json, meta.json, config.resolved.yaml, graph.json, graph.dot, stats.json "
        "and stats.csv (timed backends), operators.json (roofline) and trace.json (--trace) "
        "here")("max-cycles", po::value(&req.maxCycles)->default_value(0),
                "stop with exit code 4 past this many simulated cycles (0: no limit)")(
        "max-wall-seconds", po::value(&req.maxWallSeconds)->default_value(0),
        "stop with exit code 4 after this much wall time (0: no limit)")(
        "watchdog-cycles", po::value(&req.watchdogCycles)->default_value(tb::kDefaultWatchdogCycles),
        "timed backends: stop with exit code 3, naming the blocked operators, units and streams, when "
        "nothing moves for this many cycles (0: only when every operator waits)")(
        "trace", po::value(&trace),
        "timed backends: perfetto writes trace.json into --out (Chrome/Perfetto trace events: operator "
        "firings or unit work, stream occupancy, link and memory bandwidth)")(
        "trace-window", po::value(&traceWindow), "A:B: record only cycles [A, B) of the timeline");
    std::vector<std::string> positional;
    if (parseOrHelp(command, args, opts, &positional, f)) return 0;
    takeTestbench(command, positional, req);
    if (f.showProgress())
        req.progress = [limit = req.maxCycles](std::int64_t cycle, double wall) {
            const double rate = wall > 0 ? cycle / wall : 0;
            std::cerr << fmt::format("steprdu: cycle {}, {:.0f} s, {:.3g} simulated cycles per second{}\n",
                                     cycle, wall, rate,
                                     limit > 0 && rate > 0 ? fmt::format(", ETA to --max-cycles {:.0f} s",
                                                                         (limit - cycle) / rate)
                                                           : "")
                      << std::flush;
        };
    if (!trace.empty()) {
        if (trace != "perfetto") throw BadInput("--trace: " + expectedFound("perfetto", "'" + trace + "'"));
        if (out.empty())
            throw BadInput("--trace perfetto: " + expectedFound("--out DIR for trace.json", "no --out"));
        req.trace = true;
    }
    if (!traceWindow.empty()) parseTraceWindow(traceWindow, req);
    tb::RunArtifacts art;
    nlohmann::json j;
    const auto t0 = std::chrono::steady_clock::now();
    const auto wall = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    try {
        j = tb::runTestbench(req, &art);
    } catch (const StepError& e) {
        // A run that stops leaves its report in the run directory too.
        if (!out.empty())
            tb::writeRunError(out, static_cast<int>(e.code()), e.what(),
                              tb::runMeta(commandLine(), wall(), 0, static_cast<int>(e.code())));
        throw;
    }
    if (!out.empty())
        tb::writeRunDirectory(out, j, art,
                              tb::runMeta(commandLine(), wall(), j.value("sim_cycles_per_second", 0.0), 0));
    printWarnings(j, f);
    if (f.json) {
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    printText(j, req.backend);
    return 0;
}

} // namespace

int cmdRun(const Args& args) {
    return run("run", args);
}

int cmdRunGraph(const Args& args) {
    const bool help = !args.empty() && (args[0] == "--help" || args[0] == "-h");
    if (args.empty() || (args[0].rfind("-", 0) == 0 && !help))
        throw BadInput("steprdu run-graph: " +
                       expectedFound("a graph file first", args.empty() ? "nothing" : "'" + args[0] + "'"));
    Args runArgs = args;
    if (!help) runArgs[0] = "file=" + runArgs[0];
    runArgs.insert(runArgs.begin(), "graph");
    return run("run-graph", runArgs);
}

} // namespace steprdu::cli
