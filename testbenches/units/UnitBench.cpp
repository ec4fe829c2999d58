#include "testbenches/units/UnitBench.h"

#include <fmt/format.h>

#include "hw/fabric/FabricRoute.h"
#include "hw/mem/TierFactory.h"
#include "hw/sim/SimulationFailure.h"
#include "hw/units/Agcu.h"
#include "hw/units/OperatorProcess.h"
#include "hw/units/Pcu.h"
#include "hw/units/Pmu.h"
#include "step_ops/GraphBuilder.h"
#include "util/Error.h"

namespace steprdu::hw {

namespace {

using step::Token;

// Sends all its tokens in the first cycle: an input that is always ready. With `arrival` > 0 data element i
// streams in from cycle i x arrival to (i + 1) x arrival instead.
struct Feeder : sc_core::sc_module {
    SC_HAS_PROCESS(Feeder);
    Feeder(sc_core::sc_module_name n, TokenChannel& ch, std::vector<Token> tokens, Cycle arrival = 0)
        : sc_module(n), ch_(ch), tokens_(std::move(tokens)), arrival_(arrival) {
        SC_THREAD(run);
    }
    void run() {
        Cycle at = now();
        for (auto& t : tokens_) {
            std::int64_t bytes = t.isData() ? t.value.bytes() : 0;
            if (t.isData()) ch_.takeCredit();
            const Cycle head = std::max(at, now());
            if (t.isData()) at = head + arrival_;
            ch_.send(std::move(t), bytes, head, at);
        }
    }
    TokenChannel& ch_;
    std::vector<Token> tokens_;
    Cycle arrival_;
};

// Takes every token the cycle it becomes visible: an output that never pushes back.
struct Drain : sc_core::sc_module {
    SC_HAS_PROCESS(Drain);
    Drain(sc_core::sc_module_name n, TokenChannel& ch) : sc_module(n), ch_(ch) { SC_THREAD(run); }
    void run() {
        for (;;) {
            ch_.waitHead();
            Token t = ch_.read();
            if (t.isData()) {
                lastData = now();
                ++elements;
            }
            if (t.isDone()) return;
        }
    }
    TokenChannel& ch_;
    Cycle lastData = 0;
    std::int64_t elements = 0;
};

// A channel whose tokens stay on one unit (the local hop), unbounded.
struct LocalStream {
    explicit LocalStream(const std::string& label, Cycle hop) : route(hop), channel(label, 0) {
        channel.setRoute(&route);
        FabricRoute::Branch b;
        b.channel = &channel;
        b.local = true;
        route.addBranch(std::move(b));
    }
    FabricRoute route;
    TokenChannel channel;
};

std::vector<Token> tiles(std::int64_t count, std::int64_t rows, std::int64_t cols) {
    std::vector<Token> out;
    for (std::int64_t i = 0; i < count; ++i)
        out.push_back(Token::data(step::Tile::zeros(rows, cols, false)));
    out.push_back(Token::stop(1));
    out.push_back(Token::done());
    return out;
}

nlohmann::json opStats(const OperatorProcess& op) {
    StatsRegistry s;
    op.reportStats(s);
    return {{"busy_cycles", s.sum("busy_cycles")}, {"stall_cycles", OperatorProcess::stallCycles(s)}};
}

} // namespace

nlohmann::json runPcuBench(const HwConfig& cfg, const PcuBench& b) {
    initSimTime();
    const std::vector<std::string> known{"matmul", "add", "mul", "silu", "exp", "rowsum"};
    if (std::find(known.begin(), known.end(), b.function) == known.end())
        throw BadInput(
            fmt::format("unit pcu: function: {}",
                        expectedFound("matmul, add, mul, silu, exp or rowsum", "'" + b.function + "'")));
    const bool matmul = b.function == "matmul";
    const bool binary = matmul || b.function == "add" || b.function == "mul";
    step::Function fn = matmul                 ? step::Function::matmul()
                        : b.function == "add"  ? step::Function(step::Function::Kind::Add)
                        : b.function == "mul"  ? step::Function(step::Function::Kind::Mul)
                        : b.function == "silu" ? step::Function(step::Function::Kind::Silu)
                        : b.function == "exp"  ? step::Function(step::Function::Kind::Exp)
                                               : step::Function(step::Function::Kind::RowWiseSum);
    if (b.sharing < 1)
        throw BadInput(
            fmt::format("unit pcu: sharing: {}", expectedFound("at least 1", std::to_string(b.sharing))));
    const std::int64_t aCols = matmul ? b.k : b.n;
    step::GraphBuilder gb;
    step::Shape shape({step::Dim(b.count)});
    const std::int64_t bw = std::int64_t(b.units) * cfg.pcu.peakFlopsPerCycle();
    std::vector<std::string> names;
    for (int s = 0; s < b.sharing; ++s) {
        // The inputs' types come from placeholders that are never connected: the bench feeds the operator's
        // channels itself, so the graph only types the operator and is never finalized or run.
        std::vector<step::Stream> ins{
            gb.placeholder("tile", shape, {{"tile_rows", b.m}, {"tile_cols", aCols}}, "a")};
        if (binary)
            ins.push_back(
                gb.placeholder("tile", shape, {{"tile_rows", matmul ? b.k : b.m}, {"tile_cols", b.n}}, "b"));
        names.push_back(s ? fmt::format("op{}", s) : "op");
        gb.sink(gb.map(ins, fn, {bw, false}, names.back()));
    }
    step::Graph& g = gb.graph();
    step::TensorStore store(g, false);
    const Cycle hop = cfg.rdn.local_hop_cycles;

    Pcu pcu("pcu", cfg);
    std::vector<std::unique_ptr<OperatorProcess>> ops;
    std::vector<std::unique_ptr<LocalStream>> streams;
    std::vector<std::unique_ptr<Feeder>> feeders;
    std::vector<std::unique_ptr<Drain>> drains;
    for (const auto& name : names) {
        ops.push_back(makeChild<OperatorProcess>(pcu, name.c_str(), g.op(g.findOp(name)), g.findOp(name), pcu,
                                                 b.units, store, false, 0));
        OperatorProcess& op = *ops.back();
        op.setTimeShared(b.sharing > 1);
        for (int i = 0; i < (binary ? 2 : 1); ++i) {
            streams.push_back(std::make_unique<LocalStream>(fmt::format("{}.in{}", name, i), hop));
            op.addInput(&streams.back()->channel);
            std::int64_t rows = i == 0 ? b.m : (matmul ? b.k : b.m), cols = i == 0 ? aCols : b.n;
            feeders.push_back(std::make_unique<Feeder>(fmt::format("{}_feed{}", name, i).c_str(),
                                                       streams.back()->channel, tiles(b.count, rows, cols),
                                                       b.arrival));
        }
        streams.push_back(std::make_unique<LocalStream>(name + ".out", hop));
        op.addOutput(&streams.back()->channel);
        drains.push_back(std::make_unique<Drain>((name + "_drain").c_str(), streams.back()->channel));
    }
    simulate();
    rethrowSimulationFailure();
    // From the inputs' arrival to the last result leaving the array or pipeline.
    Cycle last = 0;
    std::int64_t elements = 0;
    for (const auto& d : drains) {
        last = std::max(last, d->lastData);
        elements += d->elements;
    }
    const Cycle cycles = last - hop - hop;
    std::vector<step::Element> args{step::Tile::zeros(b.m, aCols, false)};
    if (binary) args.emplace_back(step::Tile::zeros(matmul ? b.k : b.m, b.n, false));
    const std::int64_t flops = b.sharing * b.count * fn.flops(args);
    nlohmann::json j = opStats(*ops.front());
    j["cycles"] = cycles;
    j["flops"] = flops;
    j["elements_out"] = elements;
    j["peak_flops_per_cycle"] = bw;
    j["utilization"] = cycles > 0 ? double(flops) / cycles / bw : 0.0;
    return j;
}

nlohmann::json runPmuBench(const HwConfig& cfg, const PmuBench& b) {
    initSimTime();
    struct Streamer : sc_core::sc_module {
        SC_HAS_PROCESS(Streamer);
        Streamer(sc_core::sc_module_name n, Pmu& p, const PmuBench& b) : sc_module(n), pmu(p), bench(b) {
            SC_THREAD(run);
        }
        void run() {
            for (std::int64_t i = 0; i < bench.count; ++i)
                waitUntil(pmu.reserve(bench.write, now(), bench.bytes, bench.strideWords).second);
            done = now();
        }
        Pmu& pmu;
        const PmuBench& bench;
        Cycle done = 0;
    };
    Pmu pmu("pmu", cfg);
    Streamer s("stream", pmu, b);
    simulate();
    rethrowSimulationFailure();
    StatsRegistry st;
    pmu.reportStats(st, s.done);
    const double bytes = double(b.bytes) * b.count;
    return {{"cycles", s.done},
            {"bytes", bytes},
            {"bytes_per_cycle", s.done > 0 ? bytes / s.done : 0.0},
            {"port_bytes_per_cycle", cfg.pmu.bandwidth_bytes_per_cycle},
            {"bank_conflict_cycles", st.sum("bank_conflict_cycles")},
            {"utilization", s.done > 0 ? bytes / s.done / cfg.pmu.bandwidth_bytes_per_cycle : 0.0}};
}

nlohmann::json runAgcuBench(const HwConfig& cfg, const AgcuBench& b) {
    return runAgcuBench(cfg, b, mem::makeTiers(cfg));
}

nlohmann::json runAgcuBench(const HwConfig& cfg, const AgcuBench& b,
                            std::vector<std::unique_ptr<OffChipMemory>> tiers) {
    initSimTime();
    const std::int64_t tensorRows = b.tensorRows ? b.tensorRows : b.rows;
    const std::int64_t tensorCols = b.tensorCols ? b.tensorCols : b.cols * b.tiles;
    if (tensorRows % b.rows || tensorCols % b.cols || (tensorRows / b.rows) * (tensorCols / b.cols) < b.tiles)
        throw BadInput(fmt::format(
            "unit agcu: tensor {} x {}: {}", tensorRows, tensorCols,
            expectedFound(fmt::format("at least {} tiles of {} x {}", b.tiles, b.rows, b.cols),
                          fmt::format("{} tiles", (tensorRows / b.rows) * (tensorCols / b.cols)))));
    step::GraphBuilder gb;
    gb.tensor("t", tensorRows, tensorCols);
    gb.sink(gb.linearOffChipLoad("t", b.rows, b.cols, {1}, {b.tiles}, std::nullopt, b.elemBytes,
                                 b.parDispatch, "load"));
    step::Graph& g = gb.graph();
    g.finalize();
    step::TensorStore store(g, false);
    MemoryMap map(g, cfg);
    Agcu agcu("agcu", cfg, 0, tiers, g, map);
    auto op = makeChild<OperatorProcess>(agcu, "load", g.op(g.findOp("load")), g.findOp("load"), agcu, 1,
                                         store, false, 0);
    LocalStream out("out", cfg.rdn.local_hop_cycles);
    op->addOutput(&out.channel);
    Drain drain("drain", out.channel);
    simulate();
    rethrowSimulationFailure();
    StatsRegistry st;
    agcu.reportStats(st, drain.lastData);
    const Cycle cycles = drain.lastData - cfg.rdn.local_hop_cycles;
    const double bytes = double(b.rows) * b.cols * b.elemBytes * b.tiles;
    // A burst's round trip: the TLN each way and the memory's idle latency: for the published node its hop
    // in, its service latency (with the start-up on every request under step_compat, else only on a
    // channel's first) and its hop out; for a DRAM tier a row miss (tRCD + tCL + burst) in fabric cycles.
    Cycle memoryLatency =
        cfg.hbm.latency_cycles + (cfg.roofline.step_compat ? cfg.hbm.startup_cycles : 0) + 3;
    if (cfg.memory.hbm.model == TierDevice::Model::Dram) {
        const mem::DramSpec spec = tierSpec(cfg, Tier::Hbm);
        memoryLatency =
            mem::ClockRatio::of(cfg.clock_ghz, spec.tCKps).toFabric(spec.t.nRCD + spec.t.nCL + spec.t.nBL);
    }
    const Cycle latency = 2 * cfg.agcu.tln_latency_cycles + memoryLatency;
    nlohmann::json j = opStats(*op);
    j["cycles"] = cycles;
    j["bursts"] = st.sum("read_bursts");
    // Whole rows are one contiguous range per tile; narrower tiles a range per row (aligned here).
    const std::int64_t range = b.cols == tensorCols ? b.rows * b.cols * b.elemBytes : b.cols * b.elemBytes;
    const std::int64_t ranges = b.cols == tensorCols ? 1 : b.rows;
    j["minimal_bursts"] = b.tiles * ranges * ((range + cfg.agcu.burst_bytes - 1) / cfg.agcu.burst_bytes);
    j["bytes"] = bytes;
    j["bytes_per_cycle"] = cycles > 0 ? bytes / cycles : 0.0;
    j["round_trip_cycles"] = latency;
    j["window_bytes_per_cycle"] = double(cfg.agcu.max_outstanding) * cfg.agcu.burst_bytes / latency;
    j["peak_offchip_bytes_per_cycle"] = tiers[static_cast<int>(Tier::Hbm)]->peakBytesPerCycle();
    return j;
}

} // namespace steprdu::hw
