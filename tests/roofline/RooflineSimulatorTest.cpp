// The roofline executor on small graphs whose timing is worked out by hand from the published simulator's
// rules, plus the deadlock report.
#include <algorithm>
#include <map>

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
        if (op.name == "exp") {
            EXPECT_EQ(op.busy, 16);
        }
}

namespace {
// RepeatStatic(8) emits one copy per cycle into a depth-1 stream read by a 4-cycle Exp.
std::int64_t repeatIntoExpCycles(bool damCredits) {
    GraphBuilder b;
    Stream s = tiles(b, 1, "src");
    Stream rep = b.repeatStatic(s, 8, "repeat");
    b.sink(b.map({rep}, Function(Function::Kind::Exp), {1, false}, "exp"), "out");
    Graph g = b.finish();
    RooflineOptions o;
    o.channelDepth = 1;
    o.damCredits = damCredits;
    return RooflineSimulator(o).run(g).cycles;
}
} // namespace

TEST(RooflineTiming, BackpressureStallsTheProducerUntilACreditReturns) {
    // Exp dequeues an element only after computing it, and the slot frees one cycle after that, so each copy
    // costs 4 (compute) + 1 (credit return) + 1 (hop) = 6 cycles. Copies are visible to Exp at 2, 8, 14, ...,
    // 44; the last is done at 48 and seen by the sink at 49.
    EXPECT_EQ(repeatIntoExpCycles(false), 49);
}

TEST(RooflineTiming, DamCreditsLetTheProducerRefillWhileTheConsumerComputes) {
    // With DAM's credit stamps, Exp never waits on its output (a sink), so each slot frees one cycle after
    // its element became visible. RepeatStatic pushes copy k at 1 + 2k (1 cycle of work, then the slot of
    // copy k-1 at its visibility + 1); Exp is the bottleneck, finishing copy k at 6 + 4k: the last at 34,
    // seen by the sink at 35.
    EXPECT_EQ(repeatIntoExpCycles(true), 35);
}

TEST(RooflineTiming, DamCreditsWaitForAReceiverThatBlocks) {
    // RepeatStatic(2) and a two-tile off-chip load meet in an Add (depth-1 streams). Each 64-byte tile is one
    // request: tile 0 is served at 2 and delivered at 2 + 2 + 14 + 1 = 19 (visible 20), tile 1 issued at 19
    // is delivered at 38 (visible 39). Add holds copy 0 (visible at 2) while it waits for tile 0, so copy 0's
    // slot frees only with the dequeue: Add computes 20 -> 21, the slot frees at 22, and RepeatStatic sends
    // copy 1 at 22 and ends at 23 (at 4 if the slot freed one cycle after copy 0 became visible). Add takes
    // tile 1 at 39 and the sink sees its result at 41.
    GraphBuilder b;
    b.tensor("B", 2, 16);
    Stream copies = b.repeatStatic(tiles(b, 1, "src"), 2, "repeat");
    Stream loaded = b.linearOffChipLoad("B", 1, 16, {1}, {2}, std::nullopt, 4, 1, "load");
    b.sink(b.map({copies, loaded}, Function(Function::Kind::Add), {1 << 20, false}, "add"), "out");
    Graph g = b.finish();
    RooflineOptions o;
    o.channelDepth = 1;
    o.damCredits = true;
    auto r = RooflineSimulator(o).run(g);
    EXPECT_EQ(r.cycles, 41);
    for (auto& op : r.operators)
        if (op.name == "repeat") {
            EXPECT_EQ(op.finish, 23);
        }
}

TEST(RooflineTiming, OffChipLoadsDequeueTheirAddressOrReferenceBeforeLoading) {
    // As the published operators, a load takes each address (RandomOffChipLoad) or reference element
    // (LinearOffChipLoad with a reference) off its depth-1 stream before it issues the tile's requests, so
    // the generator refills while the tile loads: it sends element 0 at 0 and element 1 at 2 (slot of
    // element 0, visible at 1, free at 2), and ends at 2. Dequeuing after the load would hold the slot until
    // the first tile's delivery at 19, and the generator would end at 21.
    for (bool random : {true, false}) {
        GraphBuilder b;
        b.tensor("B", 2, 16);
        Stream gen = b.metadataGen({0, 1}, Shape({Dim(2)}), "gen");
        b.sink(random ? b.randomOffChipLoad(gen, "B", 1, 16, 4, 0, "load")
                      : b.linearOffChipLoad("B", 1, 16, {1}, {1}, gen, 4, 1, "load"),
               "out");
        Graph g = b.finish();
        RooflineOptions o;
        o.channelDepth = 1;
        o.damCredits = true;
        for (auto& op : RooflineSimulator(o).run(g).operators)
            if (op.name == "gen") {
                EXPECT_EQ(op.finish, 2) << (random ? "RandomOffChipLoad" : "LinearOffChipLoad");
            }
    }
}

TEST(RooflineTiming, BroadcastDefaultDepthIgnoresPerProducerDepths) {
    // 8 elements fan out to a sink and to a 4-cycle Exp, through the inserted Broadcast "src.bcast" with a
    // per-producer depth of 8. Honoured, the Broadcast forwards every element as fast as the depth-1 source
    // stream delivers them: the source pushes at 0, 2, 4, ... (a slot frees a cycle after each dequeue), so
    // the Broadcast takes the last at 15. Ignored (depth 1), every element waits for Exp's slot: 4 compute
    // + 1 credit + 1 hop = 6 cycles each, so the last is handed over at 1 + 6 x 7 = 43.
    auto broadcastFinish = [](bool ignore) {
        GraphBuilder b;
        Stream s = tiles(b, 8, "src");
        b.sink(s, "copy");
        b.sink(b.map({s}, Function(Function::Kind::Exp), {1, false}, "exp"), "out");
        Graph g = b.finish();
        RooflineOptions o;
        o.channelDepth = 1;
        o.depthByProducer["src.bcast"] = 8;
        o.broadcastDefaultDepth = ignore;
        for (auto& op : RooflineSimulator(o).run(g).operators)
            if (op.name == "src.bcast") return op.finish;
        return std::int64_t(-1);
    };
    EXPECT_EQ(broadcastFinish(false), 15);
    EXPECT_EQ(broadcastFinish(true), 43);
}

TEST(RooflineTiming, ReassembleArrivalOnlySkipsTheSwitchAndMemoryRead) {
    // One 64x64 f32 tile from off-chip through a one-input Reassemble: normally forwarded no earlier than
    // arrival + 1 switch + ceil(16384 / 64) = 256 read cycles; with reassembleArrivalOnly at its arrival.
    auto run = [](bool arrivalOnly) {
        GraphBuilder b;
        b.tensor("W", 64, 64);
        Stream w = b.flatten(b.linearOffChipLoad("W", 64, 64, {1}, {1}, std::nullopt, 4, 4, "load"), 0, 1);
        Stream sel = b.selectGen({{0}}, 1, Shape({Dim(1)}), "sel");
        b.sink(b.reassemble({w}, sel, 0, "merge"), "out");
        Graph g = b.finish();
        RooflineOptions o;
        o.reassembleArrivalOnly = arrivalOnly;
        return RooflineSimulator(o).run(g).cycles;
    };
    EXPECT_EQ(run(false) - run(true), 257);
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
        if (op.name == "exp") {
            EXPECT_EQ(op.busy, 256);
        }
    // The load: 64 rows x 4 requests = 256 requests at 4 per cycle: packets visible at 1..64, the last served
    // at channel arrival 65 or later; delivered >= 65 + 16 + 1.
    EXPECT_EQ(r.offChipReadBytes, 64 * 64 * 4);
    EXPECT_GE(r.cycles, 65 + 17 + 256 + 1);
}

TEST(RooflineTiming, PartitionForwardsTilesAsOnChipData) {
    // The 64x64 f32 off-chip tile of the test above through a one-output Partition: the Partition pays the
    // 256-cycle memory-unit read and 1 switch cycle; the tile then travels as on-chip data (it is not written
    // back), so Exp only pays its compute: ceil(4 x 4096 / 2^20) = 1 cycle.
    GraphBuilder b;
    b.tensor("W", 64, 64);
    Stream w = b.flatten(b.linearOffChipLoad("W", 64, 64, {1}, {1}, std::nullopt, 4, 4, "load"), 0, 1);
    Stream sel = b.selectGen({{0}}, 1, Shape({Dim(1)}), "sel");
    auto parts = b.partition(w, sel, 0, 1, "route");
    b.sink(b.map({parts[0]}, Function(Function::Kind::Exp), {1 << 20, false}, "exp"), "out");
    Graph g = b.finish();
    std::map<std::string, std::int64_t> busy;
    for (auto& op : RooflineSimulator(RooflineOptions{}).run(g).operators)
        busy[op.name] = op.busy;
    EXPECT_EQ(busy.at("route"), 257);
    EXPECT_EQ(busy.at("exp"), 1);
}

TEST(RooflineTiming, ReshapeAddOuterEmitsAChunkWhenTheNextElementArrives) {
    // The published Reshape(add_outer_dim) looks at what follows a chunk before emitting it. Three elements
    // through a 4-cycle Exp arrive at 6, 10 and 14 (Exp's end, pushed at 13, is visible at 14). Chunks of 1
    // then leave at 10, 14 and 14 (the last when the stream ends, without waiting past its arrival); one
    // more hop through Flatten makes them visible to a second 4-cycle Exp at 12, 16 and 16. It finishes at
    // 16, 20 and 24, and the sink sees 25. Without the look-ahead they would be visible at 8, 12 and 16 and
    // the sink would see 21.
    GraphBuilder b;
    Stream first = b.map({tiles(b, 3, "src")}, Function(Function::Kind::Exp), {1, false}, "exp1");
    Stream chunks = b.flatten(b.reshapeAddOuter(first, 1, false, "reshape"), 0, 1);
    b.sink(b.map({chunks}, Function(Function::Kind::Exp), {1, false}, "exp2"), "out");
    Graph g = b.finish();
    EXPECT_EQ(RooflineSimulator(RooflineOptions{}).run(g).cycles, 25);
}

TEST(RooflineTiming, LongRunsReportProgress) {
    // With a 0 s period the engine reports every 4096 events: 20,000 elements through Exp are about 80,000
    // events, so about 20 reports, each at a cycle no later than the next and than the end.
    GraphBuilder b;
    b.sink(b.map({tiles(b, 20000, "src")}, Function(Function::Kind::Exp), {1, false}, "exp"), "out");
    Graph g = b.finish();
    RooflineOptions o;
    o.progressSeconds = 0;
    std::vector<std::int64_t> seen;
    o.progress = [&](std::int64_t cycle, double) { seen.push_back(cycle); };
    auto r = RooflineSimulator(o).run(g);
    ASSERT_GE(seen.size(), 5u);
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
    EXPECT_LE(seen.back(), r.cycles);
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
