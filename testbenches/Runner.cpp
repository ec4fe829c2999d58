#include "testbenches/Runner.h"

#include <chrono>

#include <fmt/format.h>

#include "hw/HwConfigLoader.h"
#include "step_ops/Metrics.h"
#include "util/Error.h"

namespace steprdu::tb {

nlohmann::json workloadMetrics(const Workload& w) {
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

roofline::RooflineOptions rooflineOptions(const hw::HwConfig& cfg, const Workload& w) {
    roofline::RooflineOptions o;
    o.pmuBytesPerCycle = cfg.pmu.bandwidth_bytes_per_cycle;
    o.hbm.requestBytes = cfg.hbm.request_bytes;
    o.hbm.channels = cfg.hbm.channels;
    o.hbm.latency = cfg.hbm.latency_cycles;
    o.hbm.initInterval = cfg.hbm.init_interval_cycles;
    o.hbm.startup = cfg.hbm.startup_cycles;
    o.hbm.startupEveryRequest = cfg.roofline.step_compat;
    o.hbm.triangularOffset = cfg.roofline.step_compat;
    o.damCredits = cfg.roofline.step_compat;
    o.broadcastDefaultDepth = cfg.roofline.step_compat;
    o.reassembleArrivalOnly = cfg.roofline.step_compat;
    o.timingElemBytes = w.timingElemBytes;
    o.channelDepth = cfg.roofline.channel_depth ? cfg.roofline.channel_depth : w.channelDepth;
    o.depthByProducer = w.depthByProducer;
    return o;
}

nlohmann::json runTestbench(const RunRequest& req, RunArtifacts* art) {
    if (req.backend != "interp" && req.backend != "roofline")
        throw BadInput(fmt::format("--backend: {}; the cycle-level backend is not built yet",
                                   expectedFound("interp or roofline", "'" + req.backend + "'")));
    auto cfg = hw::loadHwConfig(req.hw);
    for (auto& s : req.sets)
        hw::applyOverride(cfg, s);
    const auto& tbench = findTestbench(req.testbench);
    Knobs knobs(tbench.name(), tbench.knobs(), req.knobs);
    auto t0 = std::chrono::steady_clock::now();
    auto w = tbench.build(knobs, req.backend == "interp");
    nlohmann::json j = workloadMetrics(w);
    j["testbench"] = tbench.name();
    j["backend"] = req.backend;
    j["hw"] = cfg.name;
    j["params"] = w.params;
    if (art) {
        art->config = cfg;
        art->graph = w.graph.toJson();
        art->dot = w.graph.toDot();
    }
    auto wall = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    if (req.backend == "roofline") {
        auto o = rooflineOptions(cfg, w);
        o.maxCycles = req.maxCycles;
        o.maxWallSeconds = req.maxWallSeconds;
        o.progress = req.progress;
        auto r = roofline::RooflineSimulator(o).run(w.graph);
        double s = wall();
        j["cycles"] = r.cycles;
        j["simulated_off_chip_bytes"] = r.offChipReadBytes + r.offChipWriteBytes;
        j["hbm_requests"] = r.hbm.requests;
        j["wall_seconds"] = s;
        j["sim_cycles_per_second"] = s > 0 ? r.cycles / s : 0.0;
        // Utilizations as the paper's scripts define them (docs/metrics.md).
        double peak = cfg.hbm.peakBytesPerCycle();
        j["off_chip_bw_utilization"] =
            r.cycles ? double(j["off_chip_bytes"].get<std::int64_t>()) / r.cycles / peak : 0.0;
        auto alloc = j["allocated_flops_per_cycle"].get<std::int64_t>();
        j["compute_utilization"] = r.cycles && alloc ? double(w.figureFlops) / r.cycles / alloc : 0.0;
        if (art) {
            art->operators = nlohmann::json::array();
            for (auto& op : r.operators)
                art->operators.push_back({{"name", op.name},
                                          {"kind", op.kind},
                                          {"finish", op.finish},
                                          {"busy", op.busy},
                                          {"elements", op.elements}});
        }
        return j;
    }
    bool functional = w.params.value("functional", true);
    step::Interpreter interp(functional);
    auto r = interp.run(w.graph);
    j["cycles"] = nullptr;
    j["simulated_off_chip_bytes"] = r.offChipReadBytes + r.offChipWriteBytes;
    j["tokens_moved"] = r.tokensMoved;
    j["wall_seconds"] = wall();
    j["functional"] = functional;
    if (functional && w.check) j["rel_error"] = w.check(interp, r);
    return j;
}

} // namespace steprdu::tb
