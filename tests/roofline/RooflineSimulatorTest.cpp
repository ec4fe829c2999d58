// The roofline executor on small graphs whose timing is worked out by hand from the published simulator's
// rules, plus the deadlock report.
#include <gtest/gtest.h>

#include "models/roofline/RooflineSimulator.h"
#include "step_ops/GraphBuilder.h"
#include "util/Error.h"

using namespace steprdu;
using namespace steprdu::step;
using namespace steprdu::roofline;

namespace {
Stream tiles(GraphBuilder& b, int n, const std::string& name) {
    nlohmann::json toks = nlohmann::json::array();
    for (int i = 0; i < n; ++i)
        toks.push_back(1.0);
    return b.source("tile", Shape({Dim(n)}), toks, {{"tile_rows", 1}, {"tile_cols", 1}}, name);
}
} // namespace

TEST(RooflineTiming, MapChainAdvancesByComputePerElement) {
    // 4 elements through Exp at compute_bw 1 (4 FLOPs each: 4 cycles per element). The source pushes at 0,
    // elements are visible at 1; Exp finishes element k at 1 + 4(k+1) and the sink sees the last at 18.
    GraphBuilder b;
    Stream s = tiles(b, 4, "src");
    b.sink(b.map({s}, Function(Function::Kind::Exp), {1, false}, "exp"), "out");
    Graph g = b.finish();
    RooflineOptions o;
    auto r = RooflineSimulator(o).run(g);
    EXPECT_EQ(r.cycles, 18);
    for (auto& op : r.operators)
        if (op.name == "exp") EXPECT_EQ(op.busy, 16);
}

TEST(RooflineTiming, BackpressureStallsTheProducerUntilACreditReturns) {
    // RepeatStatic(8) emits one copy per cycle into a depth-1 stream read by a 4-cycle Exp. Exp dequeues an
    // element only after computing it, and the slot frees one cycle after that, so each copy costs
    // 4 (compute) + 1 (credit return) + 1 (hop) = 6 cycles.
    GraphBuilder b;
    Stream s = tiles(b, 1, "src");
    Stream rep = b.repeatStatic(s, 8, "repeat");
    b.sink(b.map({rep}, Function(Function::Kind::Exp), {1, false}, "exp"), "out");
    Graph g = b.finish();
    RooflineOptions o;
    o.channelDepth = 1;
    auto r = RooflineSimulator(o).run(g);
    // Copies are visible to Exp at 2, 8, 14, ..., 44; the last is done at 48 and seen by the sink at 49.
    EXPECT_EQ(r.cycles, 49);
}

TEST(RooflineTiming, LoadedTilesCostAMemoryUnitReadInTheConsumer) {
    // A 64x64 f32 tile from off-chip (16 KiB) costs its consumer ceil(16384 / 64) = 256 cycles of PMU read.
    GraphBuilder b;
    b.tensor("W", 64, 64);
    Stream w = b.linearOffChipLoad("W", 64, 64, {1}, {1}, std::nullopt, 4, 4, "load");
    b.sink(b.map({w}, Function(Function::Kind::Exp), {1 << 20, false}, "exp"), "out");
    Graph g = b.finish();
    RooflineOptions o;
    auto r = RooflineSimulator(o).run(g);
    for (auto& op : r.operators)
        if (op.name == "exp") EXPECT_EQ(op.busy, 256);
    // The load: 64 rows x 4 requests = 256 requests at 4 per cycle: packets visible at 1..64, the last served
    // at channel arrival 65 or later; delivered >= 65 + 16 + 1.
    EXPECT_EQ(r.offChipReadBytes, 64 * 64 * 4);
    EXPECT_GE(r.cycles, 65 + 17 + 256 + 1);
}

TEST(RooflineTiming, DeadlockIsReportedWithTheStuckOperatorsAndStreams) {
    // Zip of a stream with a copy of itself delayed behind an Accum that waits for the end of the stream:
    // with depth-1 streams the Broadcast cannot feed the Zip and the Accum both, so nothing moves.
    GraphBuilder b;
    Stream s = b.source("tile", Shape({Dim(1), Dim(4)}), nlohmann::json::array({1, 2, 3, 4, "S1"}),
                        {{"tile_rows", 1}, {"tile_cols", 1}}, "src");
    Stream sum = b.accum(s, Function(Function::Kind::Add), InitFn::zero(1, 1), 1, {}, std::nullopt, "sum");
    Stream expanded = b.expand(b.promote(sum, 0), s, 1, "expand");
    b.sink(expanded, "out");
    Graph g = b.finish();
    RooflineOptions o;
    o.channelDepth = 1;
    try {
        RooflineSimulator(o).run(g);
        FAIL() << "expected NoProgress";
    } catch (const NoProgress& e) {
        std::string m = e.what();
        EXPECT_NE(m.find("no forward progress"), std::string::npos) << m;
        EXPECT_NE(m.find("Broadcast 'src.bcast'"), std::string::npos) << m;
        EXPECT_NE(m.find("is full"), std::string::npos) << m;
    }
}
