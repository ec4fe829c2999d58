// steprdu: the command-line front end (docs/cli.md). Diagnostics go to stderr; with --json, stdout holds
// exactly one JSON object. Exit codes: 0 ok, 1 internal error, 2 bad input, 3 no progress, 4 limit reached.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "hw/HwConfigLoader.h"
#include "models/roofline/RooflineSimulator.h"
#include "step_ops/Interpreter.h"
#include "step_ops/Metrics.h"
#include "testbenches/Testbench.h"
#include "util/Error.h"

namespace po = boost::program_options;
using namespace steprdu;

namespace {

const char* kUsage = R"(usage:
  steprdu list [--json]                       testbenches (knobs, defaults, docs) and hardware presets
  steprdu run <testbench> [knob=value ...] [--backend interp|roofline|cycle] [--hw <preset|file.yaml>]
              [--set <hw.key.path>=<value> ...] [--out DIR] [--json]
  steprdu analyze <testbench> [knob=value ...] [--json]   symbolic metrics only, no simulation
  steprdu <command> --help)";

struct Common {
    std::string testbench;
    std::vector<std::string> knobs;
    std::string backend = "interp", hw = "step_eval", out;
    std::vector<std::string> sets;
    bool json = false, help = false;
};

Common parse(const std::string& cmd, const std::vector<std::string>& args) {
    Common c;
    po::options_description opts(cmd + " options");
    opts.add_options()("help,h", po::bool_switch(&c.help),
                       "show this help")("json", po::bool_switch(&c.json), "print one JSON object on stdout");
    if (cmd == "run")
        opts.add_options()("backend", po::value(&c.backend)->default_value("interp"),
                           "interp (functional interpreter) or roofline (the published STeP simulator's timing)")(
            "hw", po::value(&c.hw)->default_value("step_eval"), "hardware preset name or YAML file")(
            "set", po::value(&c.sets)->composing(),
            "override a hardware key: --set hbm.channels=16 (repeatable)")(
            "out", po::value(&c.out),
            "write result.json, config.resolved.yaml, graph.json and graph.dot here");
    po::options_description hidden;
    std::vector<std::string> positional;
    hidden.add_options()("pos", po::value(&positional));
    po::options_description all;
    all.add(opts).add(hidden);
    po::positional_options_description pos;
    pos.add("pos", -1);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        throw BadInput(fmt::format("steprdu {}: {}", cmd, e.what()));
    }
    if (c.help) {
        std::cout << kUsage << "\n\n" << opts << "\n";
        return c;
    }
    if (cmd != "list") {
        if (positional.empty())
            throw BadInput(fmt::format("steprdu {}: {}", cmd, expectedFound("a testbench name", "nothing")));
        c.testbench = positional.front();
        c.knobs.assign(positional.begin() + 1, positional.end());
    } else if (!positional.empty()) {
        throw BadInput("steprdu list: " + expectedFound("no arguments", "'" + positional.front() + "'"));
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
    j["backends"] = {"interp"};
    return j;
}

int cmdList(const Common& c) {
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

nlohmann::json metricsJson(const tb::Workload& w) {
    auto sym = step::analyzeGraph(w.graph);
    auto m = step::bindMetrics(w.graph, sym, w.bindings);
    return {{"off_chip_bytes", m.offChipBytes},
            {"on_chip_bytes", m.onChipBytes},
            {"on_chip_bytes_active", m.onChipBytesActive},
            {"on_chip_bytes_paper", m.onChipBytesPaper},
            {"flops", w.figureFlops},
            {"padded_flops", w.paddedFlops},
            {"graph_flops", m.flops},
            {"allocated_flops_per_cycle", m.allocatedFlopsPerCycle},
            {"expressions",
             {{"off_chip_bytes", sym.offChipBytes.str()},
              {"on_chip_bytes", sym.onChipBytes.str()},
              {"on_chip_bytes_paper", sym.onChipBytesPaper.str()},
              {"graph_flops", sym.flops.str()}}}};
}

int cmdAnalyze(const Common& c) {
    const auto& tbench = tb::findTestbench(c.testbench);
    tb::Knobs knobs(tbench.name(), tbench.knobs(), c.knobs);
    auto w = tbench.build(knobs, false);
    nlohmann::json j = metricsJson(w);
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

roofline::RooflineOptions rooflineOptions(const hw::HwConfig& cfg, const tb::Workload& w) {
    roofline::RooflineOptions o;
    o.pmuBytesPerCycle = cfg.pmu.bandwidth_bytes_per_cycle;
    o.hbm.requestBytes = cfg.hbm.request_bytes;
    o.hbm.channels = cfg.hbm.channels;
    o.hbm.latency = cfg.hbm.latency_cycles;
    o.hbm.initInterval = cfg.hbm.init_interval_cycles;
    o.hbm.startup = cfg.hbm.startup_cycles;
    o.hbm.startupEveryRequest = cfg.roofline.step_compat;
    o.hbm.triangularOffset = cfg.roofline.step_compat;
    o.timingElemBytes = w.timingElemBytes;
    o.channelDepth = cfg.roofline.channel_depth ? cfg.roofline.channel_depth : w.channelDepth;
    o.depthByProducer = w.depthByProducer;
    return o;
}

int cmdRun(const Common& c) {
    if (c.backend != "interp" && c.backend != "roofline")
        throw BadInput(fmt::format("--backend: {}; the cycle-level backend is not built yet",
                                   expectedFound("interp or roofline", "'" + c.backend + "'")));
    auto cfg = hw::loadHwConfig(c.hw);
    for (auto& s : c.sets)
        hw::applyOverride(cfg, s);
    const auto& tbench = tb::findTestbench(c.testbench);
    tb::Knobs knobs(tbench.name(), tbench.knobs(), c.knobs);
    auto t0 = std::chrono::steady_clock::now();
    auto w = tbench.build(knobs, c.backend == "interp");
    nlohmann::json j = metricsJson(w);
    j["testbench"] = tbench.name();
    j["backend"] = c.backend;
    j["hw"] = cfg.name;
    j["params"] = w.params;
    if (c.backend == "roofline") {
        if (!c.json) std::cerr << fmt::format("steprdu: running {} on the roofline backend\n", tbench.name());
        auto r = roofline::RooflineSimulator(rooflineOptions(cfg, w)).run(w.graph);
        double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        j["cycles"] = r.cycles;
        j["simulated_off_chip_bytes"] = r.offChipReadBytes + r.offChipWriteBytes;
        j["hbm_requests"] = r.hbm.requests;
        j["wall_seconds"] = wall;
        j["sim_cycles_per_second"] = wall > 0 ? r.cycles / wall : 0.0;
        // Utilizations as the paper's scripts define them (docs/metrics.md).
        double peak = cfg.hbm.peakBytesPerCycle();
        j["off_chip_bw_utilization"] = r.cycles ? double(j["off_chip_bytes"].get<std::int64_t>()) / r.cycles / peak : 0.0;
        auto alloc = j["allocated_flops_per_cycle"].get<std::int64_t>();
        j["compute_utilization"] = r.cycles && alloc ? double(w.figureFlops) / r.cycles / alloc : 0.0;
        nlohmann::json ops = nlohmann::json::array();
        for (auto& o : r.operators)
            ops.push_back({{"name", o.name}, {"kind", o.kind}, {"finish", o.finish}, {"busy", o.busy}, {"elements", o.elements}});
        if (!c.out.empty()) std::ofstream(c.out + "/operators.json") << ops.dump(1) << "\n";
    } else {
        bool functional = w.params.value("functional", true);
        step::Interpreter interp(functional);
        if (!c.json)
            std::cerr << fmt::format("steprdu: running {} on the {} interpreter\n", tbench.name(),
                                     functional ? "functional" : "token-flow");
        auto r = interp.run(w.graph);
        double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        j["cycles"] = nullptr;
        j["simulated_off_chip_bytes"] = r.offChipReadBytes + r.offChipWriteBytes;
        j["tokens_moved"] = r.tokensMoved;
        j["wall_seconds"] = wall;
        j["functional"] = functional;
        if (functional && w.check) j["rel_error"] = w.check(interp, r);
    }
    if (!c.out.empty()) {
        std::filesystem::create_directories(c.out);
        std::ofstream(c.out + "/result.json") << j.dump(2) << "\n";
        std::ofstream(c.out + "/config.resolved.yaml") << hw::toYaml(cfg);
        std::ofstream(c.out + "/graph.json") << w.graph.toJson().dump(1) << "\n";
        std::ofstream(c.out + "/graph.dot") << w.graph.toDot();
    }
    if (c.json) {
        std::cout << j.dump(2) << "\n";
    } else {
        std::cout << fmt::format("{} ({} backend, hw {})\n", tbench.name(), c.backend, cfg.name);
        std::cout << fmt::format("  params                 {}\n", w.params.dump());
        std::cout << fmt::format("  off-chip bytes         {} (simulated {})\n",
                                 j["off_chip_bytes"].get<std::int64_t>(),
                                 j["simulated_off_chip_bytes"].get<std::int64_t>());
        std::cout << fmt::format("  on-chip bytes          {}\n", j["on_chip_bytes"].get<std::int64_t>());
        std::cout << fmt::format("  flops                  {}\n", w.figureFlops);
        if (j.contains("rel_error"))
            std::cout << fmt::format("  relative error         {:.3g} (norm-wise, vs direct computation)\n",
                                     j["rel_error"].get<double>());
        if (!j["cycles"].is_null())
            std::cout << fmt::format("  cycles                 {} ({:.3g} simulated cycles per wall second)\n",
                                     j["cycles"].get<std::int64_t>(), j["sim_cycles_per_second"].get<double>());
        std::cout << fmt::format("  wall seconds           {:.3f}\n", j["wall_seconds"].get<double>());
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
        if (cmd != "list" && cmd != "run" && cmd != "analyze")
            throw BadInput("steprdu: unknown command '" + cmd + "'; " +
                           expectedFound("list, run or analyze", "'" + cmd + "'"));
        Common c = parse(cmd, args);
        if (c.help) return 0;
        if (cmd == "list") return cmdList(c);
        if (cmd == "analyze") return cmdAnalyze(c);
        return cmdRun(c);
    } catch (const StepError& e) {
        std::cerr << "steprdu: error: " << e.what() << "\n";
        return static_cast<int>(e.code());
    } catch (const std::exception& e) {
        std::cerr << "steprdu: internal error: " << e.what() << " (please report)\n";
        return 1;
    }
}
