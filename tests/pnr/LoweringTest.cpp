// Lowering: virtual units sized by hand-derived rules, and the fit check's two policies.
#include <cmath>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "hw/config/HwConfigLoader.h"
#include "hw/pnr/Lowering.h"
#include "step_ops/GraphBuilder.h"
#include "testbenches/Runner.h"
#include "testbenches/Testbench.h"
#include "util/Error.h"

namespace {

using namespace steprdu;

struct Built {
    tb::Workload w;
    hw::pnr::LoweringOptions o;
};

Built build(const std::string& name, const std::vector<std::string>& knobs) {
    const auto& t = tb::findTestbench(name);
    tb::Knobs k(t.name(), t.knobs(), knobs);
    Built b{t.build(k, false), {}};
    b.w.graph.finalize();
    b.o = tb::loweringOptions(b.w);
    return b;
}

int opIndex(const step::Graph& g, const std::string& name) {
    for (int i = 0; i < g.numOps(); ++i)
        if (g.op(i).name() == name) return i;
    ADD_FAILURE() << "no operator " << name;
    return 0;
}

} // namespace

// gemm's matmul asks for compute_bw 4096 FLOP/cycle: 4096 / (2 x 16 x 16) = 8 PCUs, so the rate model's run
// takes 2 x 256^3 FLOPs / (8 x 512) = 8192 cycles. Each of its inputs reloads a 64 x 64 f32 tile (16 KiB) for
// each of the 4 x 4 x 4 (m, n, k) steps: 64 x 16 KiB / 8192 = 128 B/cycle, which with the default headroom of
// 2 asks for 2 x 128 / 64 = 4 lanes (no more than the 8 PCUs). The loads' streams get stage PMUs: depth 2 x
// 16 KiB = 32 KiB fits one PMU, the bandwidth needs 128 / 64 = 2, the lanes 4, so 4; each load stripes over 4
// AGCUs.
TEST(PnrLowering, ComputeGroupsAndStagesAreSizedByTheRules) {
    auto b = build("gemm", {});
    const auto cfg = hw::loadHwConfig("step_eval");
    const auto v = hw::pnr::lower(b.w.graph, cfg, b.o);
    const int mm = opIndex(b.w.graph, "matmul");
    EXPECT_EQ(v.pcus[mm], 8);
    EXPECT_DOUBLE_EQ(v.runCycles, 8192);
    ASSERT_EQ(v.stagePmus[mm].size(), 2u);
    for (int port = 0; port < 2; ++port) {
        const auto in = b.w.graph.op(mm).inputs()[port];
        EXPECT_DOUBLE_EQ(v.outputBytes[in.op][in.out], 64.0 * 16384);
        EXPECT_EQ(v.lanes[in.op][in.out], 4);
        EXPECT_EQ(v.stagePmus[mm][port], 4);
        EXPECT_EQ(v.agcus[v.origin[in.op]], 4);
    }
    EXPECT_TRUE(v.shrunk.empty());
}

// Lanes follow the headroom and stop at the units at either end: a headroom of 1 halves them; a matmul of 2
// PCUs (compute_bw 1024, a run of 32768 cycles, 32 B/cycle per input) would take 8 x 32 / 64 = 4 lanes at a
// headroom of 8, and gets 2.
TEST(PnrLowering, LanesFollowTheRateAndStopAtTheUnitsAtTheirEnds) {
    auto b = build("gemm", {});
    auto cfg = hw::loadHwConfig("step_eval");
    cfg.pnr.lane_headroom = 1;
    auto v = hw::pnr::lower(b.w.graph, cfg, b.o);
    int mm = opIndex(b.w.graph, "matmul");
    auto in = b.w.graph.op(mm).inputs()[0];
    EXPECT_EQ(v.lanes[in.op][in.out], 2);
    EXPECT_EQ(v.stagePmus[mm][0], 2);
    auto narrow = build("gemm", {"compute_bw=1024"});
    cfg.pnr.lane_headroom = 8;
    v = hw::pnr::lower(narrow.w.graph, cfg, narrow.o);
    mm = opIndex(narrow.w.graph, "matmul");
    in = narrow.w.graph.op(mm).inputs()[0];
    EXPECT_EQ(v.pcus[mm], 2);
    EXPECT_EQ(v.lanes[in.op][in.out], 2);
}

// A Broadcast's outputs are one multicast per lane. swiglu's gate matmul takes 2 x 64 x 256 x 512 FLOPs on 8
// PCUs: a run of 4096 cycles. x is a 32 x 256 f32 tile (32 KiB) for each of 2 x 8 (row, intermediate) steps:
// 512 KiB / 4096 = 128 B/cycle on each output of its Broadcast, 2 x 128 / 64 = 4 lanes; both outputs take the
// same 4 lanes, and the load stripes over 4 AGCUs.
TEST(PnrLowering, ABroadcastsOutputsShareItsLanes) {
    auto b = build("swiglu", {});
    const auto v = hw::pnr::lower(b.w.graph, hw::loadHwConfig("step_eval"), b.o);
    EXPECT_DOUBLE_EQ(v.runCycles, 4096);
    const int bcast = opIndex(b.w.graph, "load_x.bcast");
    ASSERT_EQ(v.lanes[bcast].size(), 2u);
    for (int k = 0; k < 2; ++k) {
        EXPECT_DOUBLE_EQ(v.outputBytes[bcast][k], 16 * 32768.0);
        EXPECT_EQ(v.lanes[bcast][k], 4);
    }
    EXPECT_EQ(v.agcus[opIndex(b.w.graph, "load_x")], 4);
}

// A smaller PMU makes the same stage need more of them: 2 tiles x 64 x 64 x 4 B = 32 KiB over 1 KiB PMUs.
TEST(PnrLowering, StageBuffersTakeAsManyPmusAsTheirDepthNeeds) {
    auto b = build("gemm", {});
    ASSERT_EQ(b.w.channelDepth, 2);
    auto cfg = hw::loadHwConfig("step_eval");
    cfg.pmu.capacity_bytes = 1024;
    const auto v = hw::pnr::lower(b.w.graph, cfg, b.o);
    const int mm = opIndex(b.w.graph, "matmul");
    EXPECT_EQ(v.stagePmus[mm][0], 32);
    EXPECT_EQ(v.stagePmus[mm][1], 32);
}

// swiglu needs 40 PCUs; the tiny chip has 8. `error` names the resource, the demand, the grid and the
// largest consumers; `shrink` takes PCUs from the largest groups until 8 remain and says what it changed.
TEST(PnrLowering, FitCheckErrorsOrShrinksTheLargestGroups) {
    auto b = build("swiglu", {});
    auto cfg = hw::loadHwConfig("tiny");
    try {
        hw::pnr::lower(b.w.graph, cfg, b.o);
        FAIL() << "expected an overflow";
    } catch (const BadInput& e) {
        EXPECT_NE(std::string(e.what()).find("pnr: PCU overflow: the graph needs 40 PCUs"), std::string::npos)
            << e.what();
    }
    cfg.pnr.on_overflow = hw::OnOverflow::Shrink;
    const auto v = hw::pnr::lower(b.w.graph, cfg, b.o);
    EXPECT_EQ(v.total(hw::UnitKind::Pcu), 8);
    EXPECT_FALSE(v.shrunk.empty());
    for (int p : v.pcus)
        EXPECT_LE(p, 2); // five groups share eight PCUs, largest first: none keeps more than two
    EXPECT_NE(v.shrunk.front().find("-> "), std::string::npos);
}

// A matmul followed by a chain of nine element-wise operators: ten compute operators of one PCU each. Where
// the grid has fewer PCUs, `shrink` lets an operator share its producer's PCU, one per host, the pairs with
// the least work first: two exponentials (256 cycles each on one PCU: 16 KiB at 64 B per cycle) before the
// matmul and its consumer (2 x 64^3 FLOPs / 512 = 1024 + 256), and the earliest such pair first: on tiny's
// 8 PCUs e2 joins e1 and e4 joins e3. With 4 PCUs six pairs would be needed and only four exist.
TEST(PnrLowering, ShrinkLetsOperatorsShareAProducersPcu) {
    step::GraphBuilder gb;
    gb.tensor("x", 64, 64);
    gb.tensor("w", 64, 64);
    gb.tensor("y", 64, 64);
    step::Stream s = gb.map({gb.linearOffChipLoad("x", 64, 64, {1, 1}, {1, 1}, std::nullopt, 0, 1, "load_x"),
                             gb.linearOffChipLoad("w", 64, 64, {1, 1}, {1, 1}, std::nullopt, 0, 1, "load_w")},
                            step::Function::matmul(), {}, "mm");
    for (int k = 1; k <= 9; ++k)
        s = gb.map({s}, step::Function(step::Function::Kind::Exp), {}, fmt::format("e{}", k));
    gb.linearOffChipStore(s, "y", 1, "store_y");
    const step::Graph g = gb.finish();
    hw::pnr::LoweringOptions o;
    auto cfg = hw::loadHwConfig("tiny");
    cfg.pnr.on_overflow = hw::OnOverflow::Shrink;
    const auto v = hw::pnr::lower(g, cfg, o);
    EXPECT_EQ(v.total(hw::UnitKind::Pcu), 8);
    for (int i = 0; i < g.numOps(); ++i) {
        const std::string& name = g.op(i).name();
        const int host = name == "e2" ? opIndex(g, "e1") : name == "e4" ? opIndex(g, "e3") : -1;
        EXPECT_EQ(v.sharesWith[i], host) << name;
        if (host >= 0) {
            EXPECT_EQ(v.unitsOf(i), 1) << name;
        }
    }
    ASSERT_EQ(v.shrunk.size(), 2u);
    EXPECT_EQ(v.shrunk[0], "e2: 1 PCU -> shares the PCU of e1");

    cfg.chip.cols = 2; // 4 PCUs
    try {
        hw::pnr::lower(g, cfg, o);
        FAIL() << "expected an overflow";
    } catch (const BadInput& e) {
        EXPECT_NE(std::string(e.what()).find("none can share a producer's"), std::string::npos) << e.what();
    }
}

// Two copies through an element-wise operator of 16 PCUs (1,024 B/cycle of ports), one of 8 MiB (a.) and one
// of 1 MiB (b.), on step_eval's 1,024 B/cycle of HBM. As one run they share T = 18 MiB / 1,024 = 18,432
// cycles, and b's load asks for ceil(2 x 1 MiB / 18,432 / 64) = 2 lanes. As phases that run one after the
// other, a's T is its 16 MiB at the peak (16,384 cycles) and b's its 2 MiB (2,048): b's load streams 512 B
// per cycle and gets 2 x 512 / 64 = 16 lanes, as many as the PCUs at its end.
TEST(PnrLowering, PhasesPlanTheirStreamsOverTheirOwnTime) {
    step::GraphBuilder gb;
    gb.tensor("a.x", 2048, 1024);
    gb.tensor("a.out", 2048, 1024);
    gb.tensor("b.x", 512, 512);
    gb.tensor("b.out", 512, 512);
    for (const char* p : {"a.", "b."}) {
        const std::int64_t rows = p[0] == 'a' ? 2048 : 512, cols = p[0] == 'a' ? 1024 : 512;
        auto x = gb.linearOffChipLoad(std::string(p) + "x", 64, cols, {1}, {rows / 64}, std::nullopt, 0, 1,
                                      std::string(p) + "load");
        auto y =
            gb.map({x}, step::Function(step::Function::Kind::Exp), {16 * 512, false}, std::string(p) + "exp");
        gb.linearOffChipStore(y, std::string(p) + "out", 1, std::string(p) + "store");
    }
    const step::Graph g = gb.finish();
    const auto cfg = hw::loadHwConfig("step_eval");
    hw::pnr::LoweringOptions o;
    auto v = hw::pnr::lower(g, cfg, o);
    const int load = opIndex(g, "b.load");
    EXPECT_DOUBLE_EQ(v.runCycles, 18432);
    EXPECT_DOUBLE_EQ(v.opCycles[load], 18432);
    EXPECT_EQ(v.lanes[load][0], 2);
    o.phases = {"a.", "b."};
    v = hw::pnr::lower(g, cfg, o);
    EXPECT_DOUBLE_EQ(v.runCycles, 18432);
    EXPECT_DOUBLE_EQ(v.opCycles[opIndex(g, "a.exp")], 16384);
    EXPECT_DOUBLE_EQ(v.opCycles[load], 2048);
    EXPECT_DOUBLE_EQ(v.rate(load, 0), 512);
    EXPECT_EQ(v.lanes[load][0], 16);
}

// Rates take data-dependent sizes as the run averages them: a time-multiplexed region with dynamic tiles
// sizes its buffers for its largest expert's rows but streams its experts' mean rows, so the rate of the
// region's up projection scales by mean / largest against planning with the largest.
TEST(PnrLowering, RatesUseTheMeanOfDataDependentSizes) {
    auto b = build("moe", {"batch=16", "experts=4", "topk=2", "hidden=64", "inter=64", "tile_f=32",
                           "tile_n=dynamic", "regions=2"});
    const auto cfg = hw::loadHwConfig("step_eval");
    const std::int64_t largest = b.w.bindings.at("r0.merge_rows");
    const std::int64_t mean = b.w.rateBindings.at("r0.merge_rows");
    ASSERT_GT(largest, mean); // the seed's routing gives region 0 two experts of different loads
    const auto v = hw::pnr::lower(b.w.graph, cfg, b.o);
    auto atMax = b.o;
    atMax.rateBindings.clear();
    const auto w = hw::pnr::lower(b.w.graph, cfg, atMax);
    const int up = opIndex(b.w.graph, "r0.up");
    EXPECT_DOUBLE_EQ(v.outputBytes[up][0] / w.outputBytes[up][0], double(mean) / double(largest));
}

// A compute group's PCUs take in and send out a flit each per cycle, so a group gets the PCUs its widest
// stream needs to keep the pace of the off-chip bandwidth and the other groups' FLOPs, not only those its
// FLOPs need. Attention's regions split their K and V tiles (32 rows x 64 bf16 = 4 KiB each) on routing
// operators with no FLOPs: on one PCU, the region with the most cache tiles would need tiles x 4096 / 64
// cycles, more than the run's off-chip bytes at the HBM node's 1024 B/cycle. Its split gets ceil(tiles x 4096
// / (T x 64)) PCUs instead, and T is the pace.
TEST(PnrLowering, AGroupGetsThePcusItsStreamsNeedToKeepThePace) {
    auto b = build("attention", {"strategy=coarse"});
    const auto v = hw::pnr::lower(b.w.graph, hw::loadHwConfig("step_eval"), b.o);
    std::int64_t most = 0;
    for (int r = 0; r < 4; ++r)
        most = std::max(most, b.w.bindings.at(fmt::format("r{}.kv_tiles", r)));
    ASSERT_GT(most, 0);
    EXPECT_LT(v.runCycles, most * 4096.0 / 64);
    int widest = 0;
    for (int r = 0; r < 4; ++r)
        if (b.w.bindings.at(fmt::format("r{}.kv_tiles", r)) == most)
            widest = v.pcus[opIndex(b.w.graph, fmt::format("r{}.k_split", r))];
    EXPECT_GT(widest, 1);
    EXPECT_EQ(widest, static_cast<int>(std::ceil(most * 4096.0 / (v.runCycles * 64) - 1e-9)));
}
