#include "testbenches/Runner.h"

#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "hw/CycleSimulator.h"
#include "hw/HwConfigLoader.h"
#include "step_ops/Metrics.h"
#include "util/Error.h"
#include "util/ForkRun.h"

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

namespace {

// Norm-wise difference of every off-chip tensor between two functional runs of the same graph.
nlohmann::json compareMemories(const step::Graph& g, const step::TensorStore& got,
                               const step::TensorStore& want) {
    double num = 0, den = 0, maxAbs = 0;
    bool equal = true;
    for (std::size_t t = 0; t < g.tensors().size(); ++t) {
        const auto &a = got.values(static_cast<int>(t)), &b = want.values(static_cast<int>(t));
        if (a.size() != b.size()) return {{"equal", false}, {"rel_difference", INFINITY}};
        for (std::size_t i = 0; i < a.size(); ++i) {
            double d = double(a[i]) - double(b[i]);
            num += d * d;
            den += double(b[i]) * b[i];
            maxAbs = std::max(maxAbs, std::abs(d));
            equal = equal && a[i] == b[i];
        }
    }
    return {{"tensors", g.tensors().size()},
            {"equal", equal},
            {"max_abs_difference", maxAbs},
            {"rel_difference", den > 0 ? std::sqrt(num / den) : std::sqrt(num)}};
}

nlohmann::json runCycle(const RunRequest& req, const hw::HwConfig& cfg, const Testbench& tbench,
                        const Knobs& knobs, Workload& w, RunArtifacts* art) {
    return runInChild([&]() -> nlohmann::json {
        hw::CycleOptions o;
        o.streams.channelDepth = w.channelDepth;
        o.streams.depthByProducer = w.depthByProducer;
        o.streams.timingElemBytes = w.timingElemBytes;
        o.streams.functional = req.functional;
        o.bindings = w.bindings;
        o.maxCycles = req.maxCycles;
        o.maxWallSeconds = req.maxWallSeconds;
        o.progress = req.progress;
        step::TensorStore store(w.graph, req.functional);
        auto r = hw::CycleSimulator(cfg, o).run(w.graph, store);
        nlohmann::json out = r.summary;
        out["cycles"] = r.cycles;
        out["wall_seconds"] = r.wallSeconds;
        out["sim_cycles_per_second"] = r.wallSeconds > 0 ? r.cycles / r.wallSeconds : 0.0;
        out["events"] = r.events;
        out["events_per_second"] = r.wallSeconds > 0 ? r.events / r.wallSeconds : 0.0;
        if (req.functional) {
            if (w.check) out["rel_error"] = w.check(store);
            // The scoreboard: the interpreter's results on the same program.
            auto golden = tbench.build(knobs, true);
            step::Interpreter interp(true);
            interp.run(golden.graph);
            out["scoreboard"] = compareMemories(w.graph, store, interp.memory());
        }
        if (art) out["_stats"] = {{"json", r.stats.toJson()}, {"csv", r.stats.toCsv()}};
        return out;
    });
}

} // namespace

nlohmann::json runTestbench(const RunRequest& req, RunArtifacts* art) {
    if (req.backend != "interp" && req.backend != "roofline" && req.backend != "cycle")
        throw BadInput(fmt::format("--backend: {}",
                                   expectedFound("interp, roofline or cycle", "'" + req.backend + "'")));
    if (req.functional && req.backend != "cycle")
        throw BadInput(
            fmt::format("--functional: {}", expectedFound("--backend cycle (interp is always functional)",
                                                          "--backend " + req.backend)));
    auto cfg = hw::loadHwConfig(req.hw);
    for (auto& s : req.sets)
        hw::applyOverride(cfg, s);
    const auto& tbench = findTestbench(req.testbench);
    Knobs knobs(tbench.name(), tbench.knobs(), req.knobs);
    auto t0 = std::chrono::steady_clock::now();
    auto w = tbench.build(knobs, req.backend == "interp" || req.functional);
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
    if (req.backend == "cycle") {
        nlohmann::json r = runCycle(req, cfg, tbench, knobs, w, art);
        if (art && r.contains("_stats")) {
            art->stats = r["_stats"]["json"];
            art->statsCsv = r["_stats"]["csv"];
            r.erase("_stats");
        }
        j.update(r);
        j["clock_ghz"] = cfg.clock_ghz;
        j["peak_offchip_bytes_per_cycle"] = cfg.hbm.peakBytesPerCycle();
        j["peak_flops_per_cycle"] =
            hw::ChipLayout(cfg.chip).numUnits(hw::UnitKind::Pcu) * cfg.pcu.peakFlopsPerCycle();
        const double cycles = j["cycles"].get<double>();
        j["off_chip_bw_utilization"] =
            cycles > 0 ? j["off_chip_bytes"].get<double>() / cycles / cfg.hbm.peakBytesPerCycle() : 0.0;
        const double alloc = j["allocated_flops_per_cycle"].get<double>();
        j["compute_utilization"] = cycles > 0 && alloc > 0 ? double(w.figureFlops) / cycles / alloc : 0.0;
        const double pcuPeak = j["units_used"]["pcu"].get<double>() * cfg.pcu.peakFlopsPerCycle();
        j["pcu_utilization"] =
            cycles > 0 && pcuPeak > 0 ? j["graph_flops"].get<double>() / cycles / pcuPeak : 0.0;
        j["functional"] = req.functional;
        return j;
    }
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
    if (functional && w.check) j["rel_error"] = w.check(interp.memory());
    return j;
}

} // namespace steprdu::tb
