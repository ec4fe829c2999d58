// steprdu: the command-line front end (docs/cli.md). Diagnostics go to stderr; with --json, stdout holds
// exactly one JSON object. Exit codes: 0 ok, 1 internal error, 2 bad input, 3 no progress, 4 limit reached.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include "hw/config/ConfigSchema.h"
#include "hw/config/HwConfigLoader.h"
#include "hw/sim/Stats.h"
#include "step_ops/Interpreter.h"
#include "step_ops/Metrics.h"
#include "testbenches/Calibration.h"
#include "testbenches/Claims.h"
#include "testbenches/Experiment.h"
#include "testbenches/RunDirectory.h"
#include "testbenches/Runner.h"
#include "testbenches/Testbench.h"
#include "testbenches/units/MemTraceBench.h"
#include "testbenches/units/MeshTraffic.h"
#include "tools/Commands.h"
#include "tools/Options.h"
#include "util/Error.h"
#include "util/ForkRun.h"

namespace po = boost::program_options;
using namespace steprdu;

namespace {

const char* kUsage = R"(usage:
  steprdu list [--json] [--keys] [--stats]    testbenches (knobs, defaults, docs) and hardware presets;
                                              --keys: every hardware key; --stats: every cycle-backend stat
  steprdu run <testbench> [knob=value ...] [--backend roofline|interp|cycle] [--functional]
              [--hw <preset|file.yaml>] [--set <hw.key.path>=<value> ...] [--out DIR] [--json]
  steprdu run-graph <graph.json> [run options]   run a graph file (graph.json of `run --out`, a difftest
                                              reproducer): `run graph file=<graph.json>`
  steprdu analyze <testbench> [knob=value ...] [--json]   symbolic metrics only, no simulation
  steprdu experiment list | <name> | claims | calibration [--shared DIR] [--out DIR] [--json]
                                              a paper figure as CSV; `claims`: the paper's numbers; `calibration`:
                                              the published simulator's reference points
  steprdu bench [--shared DIR] [--json]     simulated cycles (and events) per wall second on the standard
                                              cases: roofline and cycle backends, and a saturated sn40l mesh
  steprdu unit pcu matmul|simd, pmu stream, agcu read [key=value ...] [--hw ..] [--json]
                                              one unit alone with ideal inputs: cycles, utilization, stalls
  steprdu meshtraffic --pattern uniform|transpose|bitcomp|hotspot --rate R [--packet-flits N] [--mesh KxK]
              [--cycles N] [--flit-level] [--json]   synthetic traffic on the RDN mesh
  steprdu memtrace <trace.csv> | --generate sequential|random|mixed  --mem hbm2|hbm2e|ddr4|ddr5|sn40l|tiny
              [--set key=value ...] [--json]   a DRAM tier alone: bandwidth, latency, row hits
  steprdu pnr <testbench> [knob=value ...] [--hw ..] [--set ..] [--out DIR] [--json]
                                              place and route only: units, wirelength, hops, link loads;
                                              --out writes pnr.json and floorplan.svg
  steprdu compare <testbench> [knob=value ...] [--hw ..] [--set ..] [--json]
                                              roofline and cycle-level side by side: ratio, lower bounds,
                                              stalls by cause and unit kind, busiest links and channels
  steprdu difftest [--count N] [--seed S] [--backends interp,roofline,cycle] [--json]
                                              random STeP programs on every executor, checked against each
                                              other and the symbolic metrics; exit 1 on any failure
  steprdu sweep <spec.yaml|experiment> [-j N] [--out DIR] [--emit parallel|slurm]
                                              a sweep over knobs, hw.<key> and backend that resumes;
                                              DIR/results.csv (docs/sweeps.md)
  steprdu collect DIR                       merge a sweep's finished points into DIR/results.csv
  steprdu <command> --help)";

struct Common {
    std::string testbench;
    std::vector<std::string> knobs;
    std::string backend = "roofline", hw = "step_eval", out, shared;
    std::int64_t maxCycles = 0;
    double maxWallSeconds = 0;
    std::int64_t watchdogCycles = tb::kDefaultWatchdogCycles;
    std::vector<std::string> sets;
    bool json = false, help = false, functional = false, keys = false, stats = false;
    std::string commandLine; // as typed, for meta.json
    std::string trace, traceWindow;
    bool quiet = false;
    // Progress goes to stderr only when it is a terminal and --quiet is not given.
    bool showProgress() const { return !quiet && ::isatty(STDERR_FILENO); }
};

Common parse(const std::string& cmd, const std::vector<std::string>& args) {
    Common c;
    po::options_description opts(cmd + " options");
    opts.add_options()("help,h", po::bool_switch(&c.help),
                       "show this help")("json", po::bool_switch(&c.json), "print one JSON object on stdout")(
        "quiet,q", po::bool_switch(&c.quiet), "no progress on stderr (progress shows only on a terminal)");
    if (cmd == "list")
        opts.add_options()("keys", po::bool_switch(&c.keys),
                           "print the hardware configuration keys as a Markdown table (docs/config.md)")(
            "stats", po::bool_switch(&c.stats),
            "print the cycle backend's stats as a Markdown table (docs/stats.md)");
    if (cmd == "run")
        opts.add_options()(
            "backend", po::value(&c.backend)->default_value("roofline"),
            "interp (functional interpreter), roofline (the published STeP simulator's timing) or cycle "
            "(the SystemC chip)")(
            "functional", po::bool_switch(&c.functional),
            "cycle backend: compute real values and compare them with the interpreter (scoreboard)")(
            "hw", po::value(&c.hw)->default_value("step_eval"), "hardware preset name or YAML file")(
            "set", po::value(&c.sets)->composing(),
            "override a hardware key: --set hbm.channels=16 (repeatable)")(
            "out", po::value(&c.out),
            "write result.json, meta.json, config.resolved.yaml, graph.json, graph.dot, stats.json and "
            "stats.csv (timed backends), operators.json (roofline) and trace.json (--trace) here")(
            "max-cycles", po::value(&c.maxCycles)->default_value(0),
            "stop with exit code 4 past this many simulated cycles (0: no limit)")(
            "max-wall-seconds", po::value(&c.maxWallSeconds)->default_value(0),
            "stop with exit code 4 after this much wall time (0: no limit)")(
            "watchdog-cycles", po::value(&c.watchdogCycles)->default_value(tb::kDefaultWatchdogCycles),
            "timed backends: stop with exit code 3, naming the blocked operators, units and streams, when "
            "nothing moves for this many cycles (0: only when every operator waits)")(
            "trace", po::value(&c.trace),
            "timed backends: perfetto writes trace.json into --out (Chrome/Perfetto trace events: operator "
            "firings or unit work, stream occupancy, link and memory bandwidth)")(
            "trace-window", po::value(&c.traceWindow), "A:B: record only cycles [A, B) of the timeline");
    if (cmd == "experiment" || cmd == "bench")
        opts.add_options()(
            "shared", po::value(&c.shared),
            "folder with the real traces and references (default: $STEPRDU_SHARED, else ../shared)")(
            "out", po::value(&c.out),
            "write <name>.csv, claims.json or calibration.json here (default: runs/<name>)");
    std::vector<std::string> positional;
    cli::parseOptions(cmd, args, opts, &positional);
    if (c.help) {
        std::cout << kUsage << "\n\n" << opts << "\n";
        return c;
    }
    if (cmd != "list" && cmd != "bench") {
        if (positional.empty())
            throw BadInput(fmt::format(
                "steprdu {}: {}", cmd,
                expectedFound(cmd == "experiment" ? "an experiment name (or list)" : "a testbench name",
                              "nothing")));
        c.testbench = positional.front();
        c.knobs.assign(positional.begin() + 1, positional.end());
    } else if (!positional.empty()) {
        throw BadInput("steprdu " + cmd + ": " +
                       expectedFound("no arguments", "'" + positional.front() + "'"));
    }
    return c;
}

nlohmann::json listJson() {
    nlohmann::json j;
    for (auto& tb : tb::testbenches()) {
        nlohmann::json knobs = nlohmann::json::array();
        for (auto& k : tb->knobs())
            knobs.push_back({{"name", k.name}, {"default", k.defaultValue}, {"doc", k.doc}});
        j["testbenches"].push_back({{"name", tb->name()}, {"doc", tb->doc()}, {"knobs", knobs}});
    }
    for (auto& p : hw::presetNames())
        j["hw_presets"].push_back({{"name", p}, {"doc", hw::presetDescription(p)}});
    j["backends"] = {"roofline", "interp", "cycle"};
    return j;
}

int cmdList(const Common& c) {
    if (c.keys) {
        std::cout << hw::schemaMarkdown();
        return 0;
    }
    if (c.stats) {
        std::cout << hw::statsMarkdown();
        return 0;
    }
    auto j = listJson();
    if (c.json) {
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << "testbenches:\n";
    for (auto& t : j["testbenches"]) {
        std::cout << fmt::format("  {:10} {}\n", t["name"].get<std::string>(), t["doc"].get<std::string>());
        for (auto& k : t["knobs"]) {
            std::string d = k["default"];
            std::cout << fmt::format("      {:12} {:10} {}\n", k["name"].get<std::string>(),
                                     d.empty() ? "(derived)" : d, k["doc"].get<std::string>());
        }
    }
    std::cout << "hardware presets (--hw):\n";
    for (auto& p : j["hw_presets"])
        std::cout << fmt::format("  {:16} {}\n", p["name"].get<std::string>(), p["doc"].get<std::string>());
    return 0;
}

int cmdAnalyze(const Common& c) {
    const auto& tbench = tb::findTestbench(c.testbench);
    tb::Knobs knobs(tbench.name(), tbench.knobs(), c.knobs);
    auto w = tbench.build(knobs, false);
    nlohmann::json j = tb::workloadMetrics(w);
    j["testbench"] = tbench.name();
    j["params"] = w.params;
    if (c.json) {
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << fmt::format("{} {}\n", tbench.name(), w.params.dump());
    for (auto key : {"off_chip_bytes", "on_chip_bytes", "on_chip_bytes_active", "on_chip_bytes_paper",
                     "flops", "padded_flops", "graph_flops", "allocated_flops_per_cycle"})
        std::cout << fmt::format("  {:27} {}\n", key, j[key].get<std::int64_t>());
    return 0;
}

// The command line as typed (words with spaces quoted), for meta.json.
std::string commandLine(int argc, char** argv) {
    std::string s;
    for (int i = 0; i < argc; ++i) {
        const std::string w = argv[i];
        s += (i ? " " : "") + (w.find_first_of(" \t'\"") == std::string::npos ? w : "'" + w + "'");
    }
    return s;
}

int cmdRun(const Common& c) {
    tb::RunRequest req{c.testbench, c.knobs,          c.backend,        c.hw, c.sets,
                       c.maxCycles, c.maxWallSeconds, c.watchdogCycles, {},   c.functional};
    if (c.showProgress())
        req.progress = [limit = c.maxCycles](std::int64_t cycle, double wall) {
            const double rate = wall > 0 ? cycle / wall : 0;
            std::cerr << fmt::format("steprdu: cycle {}, {:.0f} s, {:.3g} simulated cycles per second{}\n",
                                     cycle, wall, rate,
                                     limit > 0 && rate > 0 ? fmt::format(", ETA to --max-cycles {:.0f} s",
                                                                         (limit - cycle) / rate)
                                                           : "")
                      << std::flush;
        };
    if (!c.trace.empty()) {
        if (c.trace != "perfetto")
            throw BadInput("--trace: " + expectedFound("perfetto", "'" + c.trace + "'"));
        if (c.out.empty())
            throw BadInput("--trace perfetto: " + expectedFound("--out DIR for trace.json", "no --out"));
        req.trace = true;
    }
    if (!c.traceWindow.empty()) {
        const auto colon = c.traceWindow.find(':');
        std::int64_t a = -1, b = -1;
        try {
            if (colon != std::string::npos) {
                std::size_t ea = 0, eb = 0;
                a = std::stoll(c.traceWindow.substr(0, colon), &ea);
                b = std::stoll(c.traceWindow.substr(colon + 1), &eb);
                if (ea != colon || eb != c.traceWindow.size() - colon - 1) a = -1;
            }
        } catch (const std::exception&) {
            a = -1;
        }
        if (a < 0 || b <= a)
            throw BadInput("--trace-window: " +
                           expectedFound("A:B with 0 <= A < B (cycles)", "'" + c.traceWindow + "'"));
        if (!req.trace) throw BadInput("--trace-window: " + expectedFound("--trace perfetto", "no --trace"));
        req.traceFrom = a;
        req.traceTo = b;
    }
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
        if (!c.out.empty())
            tb::writeRunError(c.out, static_cast<int>(e.code()), e.what(),
                              tb::runMeta(c.commandLine, wall(), 0, static_cast<int>(e.code())));
        throw;
    }
    if (!c.out.empty())
        tb::writeRunDirectory(c.out, j, art,
                              tb::runMeta(c.commandLine, wall(), j.value("sim_cycles_per_second", 0.0), 0));
    if (c.json) {
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << fmt::format("{} ({} backend, hw {})\n", j["testbench"].get<std::string>(), c.backend,
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
    if (j.contains("scoreboard"))
        std::cout << fmt::format("  scoreboard             {} (max |difference| {:.3g} vs the interpreter)\n",
                                 j["scoreboard"]["equal"].get<bool>() ? "identical" : "differs",
                                 j["scoreboard"]["max_abs_difference"].get<double>());
    if (j.contains("rel_error"))
        std::cout << fmt::format("  relative error         {:.3g} (norm-wise, vs direct computation)\n",
                                 j["rel_error"].get<double>());
    std::cout << fmt::format("  wall seconds           {:.3f}", j["wall_seconds"].get<double>());
    if (j.contains("sim_cycles_per_second"))
        std::cout << fmt::format(" ({:.3g} simulated cycles per second)",
                                 j["sim_cycles_per_second"].get<double>());
    std::cout << "\n";
    return 0;
}

int printCalibration(const std::vector<tb::CalibrationCheck>& checks, const std::string& out, bool json) {
    nlohmann::json j = nlohmann::json::array();
    for (auto& k : checks)
        j.push_back({{"group", k.group},
                     {"point", k.what},
                     {"measured", k.measured},
                     {"reference", k.reference},
                     {"relative_difference", k.relative()},
                     {"tolerance", k.tolerance},
                     {"within_tolerance", k.ok()}});
    bool all = std::all_of(checks.begin(), checks.end(), [](const auto& k) { return k.ok(); });
    nlohmann::json doc = {{"checks", j}, {"all_within_tolerance", all}};
    std::ofstream(out + "/calibration.json") << doc.dump(2) << "\n";
    if (json) {
        std::cout << doc.dump(2) << "\n";
        return 0;
    }
    std::cout << fmt::format("{:18} {:36} {:>12} {:>12} {:>7}\n", "group", "point", "steprdu", "published",
                             "diff");
    for (auto& k : checks)
        std::cout << fmt::format("{:18} {:36} {:>12} {:>12} {:+6.2f}% {}\n", k.group, k.what,
                                 fmt::format(k.reference > 100 ? "{:.0f}" : "{:.4f}", k.measured),
                                 fmt::format(k.reference > 100 ? "{:.0f}" : "{:.4f}", k.reference),
                                 100 * k.relative(),
                                 k.ok() ? "" : fmt::format("(outside {:g}%)", 100 * k.tolerance));
    return 0;
}

int cmdExperiment(const Common& c) {
    const std::string& name = c.testbench;
    if (name == "list") {
        for (auto& n : tb::experimentNames())
            std::cout << fmt::format("  {:10} {}\n", n, tb::loadExperiment(n).description);
        std::cout << fmt::format("  {:10} {}\n", "claims",
                                 "runs the experiments behind the paper's §5 numbers and compares");
        std::cout << fmt::format("  {:10} {}\n", "calibration",
                                 "reruns the published simulator's reference points and compares");
        return 0;
    }
    std::vector<std::string> names = name == "claims"        ? tb::claimExperiments()
                                     : name == "calibration" ? std::vector<std::string>{}
                                                             : std::vector<std::string>{name};
    bool needsShared = name == "claims" || name == "calibration";
    for (auto& n : names) // an unknown name fails here, before anything runs
        needsShared = tb::readsSharedData(tb::loadExperiment(n)) || needsShared;
    std::string shared = c.shared;
    shared = cli::sharedDir(shared);
    if (needsShared && !std::filesystem::is_directory(shared + "/traces"))
        throw BadInput(fmt::format("--shared {}: {}", shared,
                                   expectedFound("a folder holding traces/", "no such folder")));
    std::string out = c.out.empty() ? "runs/" + name : c.out;
    std::filesystem::create_directories(out);
    const auto start = std::chrono::steady_clock::now();
    std::function<void(int, int, const std::string&)> progress;
    if (c.showProgress())
        progress = [start](int k, int n, const std::string& what) {
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            const double rate = k > 1 && s > 0 ? (k - 1) / s : 0;
            std::cerr << fmt::format(
                "[{}/{}] {}{}\n", k, n, what,
                rate > 0 ? fmt::format("  ({:.2f} runs/s, ETA {:.0f} s)", rate, (n - k + 1) / rate) : "");
        };
    if (name == "calibration") return printCalibration(tb::runCalibration(shared, progress), out, c.json);
    std::map<std::string, tb::ExperimentResult> results;
    for (auto& n : names) {
        auto def = tb::loadExperiment(n);
        auto t0 = std::chrono::steady_clock::now();
        results[n] = tb::runExperiment(def, shared, progress);
        std::ofstream(out + "/" + n + ".csv") << tb::experimentCsv(results[n]);
        if (!c.quiet)
            std::cerr << fmt::format(
                "{}: {} runs in {:.1f} s -> {}/{}.csv\n", n, results[n].rows.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), out, n);
    }
    if (name != "claims") {
        if (c.json) {
            std::cout << nlohmann::json{{"experiment", name}, {"rows", results[name].rows}}.dump(2) << "\n";
        } else {
            std::cout << tb::experimentCsv(results[name]);
        }
        return 0;
    }
    auto claims = tb::paperClaims(results);
    nlohmann::json j = nlohmann::json::array();
    for (auto& cl : claims)
        j.push_back({{"figure", cl.figure},
                     {"claim", cl.what},
                     {"paper", cl.paper},
                     {"measured", cl.measured},
                     {"relative_difference", (cl.measured - cl.paper) / cl.paper},
                     {"kind", cl.upperBound ? "upper_bound" : "value"},
                     {"holds", cl.ok()}});
    bool all = std::all_of(claims.begin(), claims.end(), [](const auto& cl) { return cl.ok(); });
    nlohmann::json doc = {{"claims", j}, {"all_hold", all}};
    std::ofstream(out + "/claims.json") << doc.dump(2) << "\n";
    if (c.json) {
        std::cout << doc.dump(2) << "\n";
        return 0;
    }
    std::cout << fmt::format("{:7} {:84} {:>8} {:>9} {:>7}\n", "figure", "claim", "paper", "measured",
                             "diff");
    for (auto& cl : claims)
        std::cout << fmt::format("{:7} {:84} {:8.3f} {:9.3f} {:+6.1f}% {}\n", cl.figure, cl.what, cl.paper,
                                 cl.measured, 100 * (cl.measured - cl.paper) / cl.paper,
                                 cl.upperBound ? (cl.ok() ? "(bound: below)" : "(bound: not below)")
                                 : cl.ok()     ? ""
                                               : "(outside 10%)");
    return 0;
}

// The standard cases: the issue's speed targets (Mixtral b64 tile 16, the Fig 9 sweep) and attention.
int cmdBench(const Common& c) {
    std::string shared = c.shared;
    shared = cli::sharedDir(shared);
    bool real = std::filesystem::is_directory(shared + "/traces");
    if (!real)
        std::cerr << "steprdu: " << shared
                  << "/traces not found; benchmarking the bundled synthetic traces\n";
    auto moe = [&](const std::string& model, const std::string& file) {
        return real ? "trace=" + shared + "/traces/expert_routing/" + file : std::string("model=" + model);
    };
    struct Case {
        std::string name, testbench;
        std::vector<std::string> knobs;
        std::string backend = "roofline", hw = "step_eval";
    };
    const std::string mixtral = moe("mixtral", "mixtral_b64/008_010.csv");
    const std::string kv =
        real ? "trace=" + shared + "/traces/kv_lengths/b64/conv_stdev0996_4007_4070.csv" : "batch=64";
    std::vector<Case> cases{{"moe mixtral b64 tile 16", "moe", {"model=mixtral", mixtral, "tile_n=16"}}};
    for (auto [model, file] :
         {std::pair{"mixtral", "mixtral_b64/008_010.csv"}, std::pair{"qwen", "qwen_b64/032_012.csv"}})
        for (auto t : {"8", "16", "32", "64", "dynamic"})
            cases.push_back({fmt::format("fig9 {} tile {}", model, t),
                             "moe",
                             {std::string("model=") + model, moe(model, file), std::string("tile_n=") + t}});
    for (auto s : {"coarse", "interleaved", "dynamic"})
        cases.push_back(
            {fmt::format("attention b64 {}", s), "attention", {std::string("strategy=") + s, kv}});
    // The cycle backend on the same workloads (its issue's speed cases), and Fig 8's SwiGLU.
    cases.push_back({"moe mixtral b64 tile 16", "moe", {"model=mixtral", mixtral, "tile_n=16"}, "cycle"});
    cases.push_back({"attention b64 dynamic", "attention", {"strategy=dynamic", kv}, "cycle"});
    cases.push_back({"swiglu fig8 32x64", "swiglu", {}, "cycle", "step_validation"});
    cases.push_back(
        {"moe mixtral b64 t16 sn40l", "moe", {"model=mixtral", mixtral, "tile_n=16"}, "cycle", "sn40l"});
    nlohmann::json out = nlohmann::json::array();
    double fig9 = 0;
    if (!c.json)
        std::cout << fmt::format("{:28} {:9} {:>12} {:>9} {:>12} {:>12}\n", "case", "backend", "cycles",
                                 "wall s", "cycles/s", "events/s");
    auto row = [&](const std::string& name, const std::string& backend, const nlohmann::json& j) {
        double wall = j["wall_seconds"].get<double>();
        nlohmann::json r{{"case", name},
                         {"backend", backend},
                         {"cycles", j["cycles"]},
                         {"wall_seconds", wall},
                         {"sim_cycles_per_second", j["sim_cycles_per_second"]}};
        if (j.contains("events_per_second")) r["events_per_second"] = j["events_per_second"];
        out.push_back(r);
        if (!c.json)
            std::cout << fmt::format(
                "{:28} {:9} {:>12} {:>9.2f} {:>12.3g} {:>12}\n", name, backend,
                j["cycles"].get<std::int64_t>(), wall, j["sim_cycles_per_second"].get<double>(),
                j.contains("events_per_second") ? fmt::format("{:.3g}", j["events_per_second"].get<double>())
                                                : "");
    };
    for (auto& k : cases) {
        tb::RunRequest req;
        req.testbench = k.testbench;
        req.knobs = k.knobs;
        req.backend = k.backend;
        req.hw = k.hw;
        auto j = tb::runTestbench(req);
        if (k.backend == "roofline" && k.name.rfind("fig9", 0) == 0) fig9 += j["wall_seconds"].get<double>();
        row(k.name, k.backend, j);
    }
    // The mesh alone, saturated: uniform random traffic over the whole sn40l grid (26 x 80 switches).
    hw::TrafficOptions t;
    t.rows = t.cols = 0;
    t.rate = 0.05;
    t.warmup = 200;
    t.cycles = 4000;
    auto mesh = runInChild([&] { return hw::runMeshTraffic(hw::loadHwConfig("sn40l"), t); });
    mesh["cycles"] = mesh["simulated_cycles"];
    row("sn40l mesh uniform 0.05 (sat.)", "mesh", mesh);
    // A DRAM tier alone: a 64 MiB read stream in 4 KiB requests on hbm2, on the fast path and on the
    // per-request path (one SystemC event per transaction and command). The two alternate three times and
    // each keeps its fastest run, so that a noisy moment on the machine does not land on one side only.
    traces::MemTraceGenerator g;
    g.bytes = 64 << 20;
    g.requestBytes = 4096;
    const traces::MemTrace stream = traces::generateMemTrace(g);
    constexpr int kMemRuns = 3;
    nlohmann::json memBest[2];
    for (int run = 0; run < kMemRuns; ++run)
        for (bool fast : {true, false}) {
            hw::mem::MemTraceOptions o;
            o.spec = hw::mem::dramPreset("hbm2");
            o.fastPath = fast;
            auto m = runInChild([&] { return hw::mem::runMemTrace(o, stream); });
            nlohmann::json& best = memBest[fast ? 0 : 1];
            if (best.is_null() || m["wall_seconds"].get<double>() < best["wall_seconds"].get<double>())
                best = m;
        }
    for (bool fast : {true, false}) {
        nlohmann::json& m = memBest[fast ? 0 : 1];
        m["cycles"] = m["dram_cycles"];
        m["sim_cycles_per_second"] = m["dram_cycles"].get<double>() / m["wall_seconds"].get<double>();
        row(fast ? "hbm2 64 MiB stream, fast" : "hbm2 64 MiB stream, per-req.", "memtrace", m);
    }
    const double fastPathSpeedup =
        memBest[1]["wall_seconds"].get<double>() / memBest[0]["wall_seconds"].get<double>();
    // Place-and-route of the largest paper graph: Qwen MoE, 128 experts, batch 64, time-multiplexed at 32.
    tb::RunRequest pr;
    pr.testbench = "moe";
    pr.knobs = {"model=qwen", moe("qwen", "qwen_b64/032_012.csv"), "regions=32"};
    pr.hw = "sn40l";
    const nlohmann::json pnr = tb::placeAndRouteTestbench(pr);
    const double pnrWall = pnr["wall_seconds"].get<double>();
    if (c.json) {
        std::cout << nlohmann::json{{"cases", out},
                                    {"fig9_sweep_wall_seconds", fig9},
                                    {"memtrace_fast_path_speedup", fastPathSpeedup},
                                    {"pnr_qwen_b64_tm32_wall_seconds", pnrWall},
                                    {"pnr_qwen_b64_tm32_cells", pnr["cells"]},
                                    {"real_traces", real}}
                         .dump(2)
                  << "\n";
    } else {
        std::cout << fmt::format("fig9 sweep (10 points, roofline): {:.2f} s wall\n", fig9);
        std::cout << fmt::format(
            "memtrace fast path: {:.1f}x faster than per-request (best of {} runs each)\n", fastPathSpeedup,
            kMemRuns);
        std::cout << fmt::format("pnr qwen b64, 32 regions, sn40l: {:.2f} s wall ({} cells, {} nets)\n",
                                 pnrWall, pnr["cells"].get<int>(), pnr["nets"].get<int>());
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    try {
        if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
            std::cout << kUsage << "\n";
            return args.empty() ? 2 : 0;
        }
        std::string cmd = args[0];
        args.erase(args.begin());
        if (cmd == "unit") return cli::cmdUnit(args);
        if (cmd == "meshtraffic") return cli::cmdMeshTraffic(args);
        if (cmd == "memtrace") return cli::cmdMemTrace(args);
        if (cmd == "pnr") return cli::cmdPnr(args);
        if (cmd == "compare") return cli::cmdCompare(args);
        if (cmd == "difftest") return cli::cmdDiffTest(args);
        if (cmd == "sweep") return cli::cmdSweep(args);
        if (cmd == "collect") return cli::cmdCollect(args);
        if (cmd == "run-graph") {
            // `run-graph g.json ...` is `run graph file=g.json ...`.
            if (args.empty() || (args[0].rfind("-", 0) == 0 && args[0] != "--help" && args[0] != "-h"))
                throw BadInput(
                    "steprdu run-graph: " +
                    expectedFound("a graph file first", args.empty() ? "nothing" : "'" + args[0] + "'"));
            if (args[0] != "--help" && args[0] != "-h") args[0] = "file=" + args[0];
            args.insert(args.begin(), "graph");
            cmd = "run";
        }
        if (cmd != "list" && cmd != "run" && cmd != "analyze" && cmd != "experiment" && cmd != "bench")
            throw BadInput(
                "steprdu: unknown command '" + cmd + "'; " +
                expectedFound("list, run, run-graph, analyze, experiment, bench, unit, meshtraffic, "
                              "memtrace, pnr, compare, difftest, sweep or collect",
                              "'" + cmd + "'"));
        Common c = parse(cmd, args);
        if (c.help) return 0;
        c.commandLine = commandLine(argc, argv);
        if (cmd == "list") return cmdList(c);
        if (cmd == "analyze") return cmdAnalyze(c);
        if (cmd == "experiment") return cmdExperiment(c);
        if (cmd == "bench") return cmdBench(c);
        return cmdRun(c);
    } catch (const StepError& e) {
        std::cerr << "steprdu: error: " << e.what() << "\n";
        return static_cast<int>(e.code());
    } catch (const std::exception& e) {
        std::cerr << "steprdu: internal error: " << e.what() << " (please report)\n";
        return 1;
    }
}
