// The STeP paper's operator examples (§3, Figures 2-5) and the stream/stop-token model.
#include <gtest/gtest.h>

#include "StreamHelpers.h"
#include "step_ops/Metrics.h"
#include "step_ops/TensorStore.h"
#include "util/Error.h"

using namespace steprdu;
using namespace steprdu::step;
using steprdu::test::runToSink;
using steprdu::test::tileSource;

TEST(StepStream, FlattenOfRaggedStreamAbsorbsIntoNewRaggedDim) {
    // Example (1): 1, 2, S1, 3, S2, 4, S1, 5, 6, 7, S2, D with shape [2, 2, D0].
    GraphBuilder b;
    Shape shape({Dim(2), Dim(2), Dim::ragged("D0")});
    Stream s = tileSource(b, "1, 2, S1, 3, S2, 4, S1, 5, 6, 7, S2", shape);
    Stream f = b.flatten(s, 0, 1, "flat");
    EXPECT_EQ(f.shape().numDims(), 2);
    EXPECT_EQ(f.shape().dims()[0].size.constValue(), 2);
    EXPECT_EQ(f.shape().dims()[1].kind, DimKind::Ragged);
    // D0' is a new symbol, not 2*D0.
    EXPECT_EQ(f.shape().dims()[1].size.str(), "flat_len");
    b.sink(f, "out");
    EXPECT_EQ(runToSink(b), "1, 2, 3, S1, 4, 5, 6, 7, S1, D");
}

TEST(StepStream, FlattenOfStaticDimsMultiplies) {
    GraphBuilder b;
    Stream s = tileSource(b, "1, 2, S1, 3, 4, S2, 5, 6, S1, 7, 8, S2", Shape({Dim(2), Dim(2), Dim(2)}));
    Stream f = b.flatten(s, 1, 2, "flat");
    EXPECT_EQ(f.shape().str(), "[4, 2]");
    b.sink(f, "out");
    EXPECT_EQ(runToSink(b), "1, 2, S1, 3, 4, S1, 5, 6, S1, 7, 8, S1, D");
}

TEST(StepOffChip, Figure2LoadWithDynamicReferenceReplaysTheAffineRead) {
    // A 64x256 tensor read as 64x64 tiles in row-major order (stride (4,1), shape (1,4)) once per
    // reference element: output shape [D1, 1, 4].
    GraphBuilder b;
    std::vector<float> w(64 * 256);
    for (std::size_t i = 0; i < w.size(); ++i)
        w[i] = static_cast<float>(i % 256 / 64); // tile column index
    b.tensor("W", 64, 256, w);
    Stream ref = b.metadataGen({7, 8, 9}, Shape({Dim::dynamic("D1")}), "ref");
    Stream load = b.linearOffChipLoad("W", 64, 64, {4, 1}, {1, 4}, ref, 0, 1, "load");
    EXPECT_EQ(load.shape().str(), "[D1, 1, 4]");
    b.sink(load, "out");
    Graph g = b.finish();
    Interpreter interp;
    auto r = interp.run(g);
    const auto& toks = r.sinks.at("out");
    std::string structure;
    std::vector<float> firstValues;
    for (auto& t : toks) {
        structure += t.isData() ? "t" : t.str();
        if (t.isData()) firstValues.push_back(t.value.tile().at(0, 0));
        structure += " ";
    }
    EXPECT_EQ(structure, "t t t t S2 t t t t S2 t t t t S2 D ");
    EXPECT_EQ(firstValues, (std::vector<float>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}));
    EXPECT_EQ(r.offChipReadBytes, 3 * 4 * 64 * 64 * 4);
    auto m = analyzeGraph(g);
    EXPECT_EQ(m.offChipBytes.eval({{"D1", 3}}), 3 * 4 * 64 * 64 * 4);
}

TEST(StepOnChip, Figure3BufferizeThenStreamifyWithReference) {
    GraphBuilder b;
    Stream s = tileSource(b, "1, 2, S1, 3, S1", Shape({Dim(2), Dim::ragged("D0")}));
    Stream buf = b.bufferize(s, 1, "buf");
    EXPECT_EQ(buf.shape().str(), "[2]");
    EXPECT_EQ(buf.type().dtype.kind, DataType::Kind::Buffer);
    // Each buffer is streamed once per element of the reference's inner dimension (3 and 2 times).
    Stream ref = tileSource(b, "0, 0, 0, S1, 0, 0, S1", Shape({Dim(2), Dim::ragged("R")}), "ref");
    Stream out = b.streamify(buf, ref, "streamify");
    EXPECT_EQ(out.shape().numDims(), 3);
    b.sink(out, "out");
    EXPECT_EQ(runToSink(b), "1, 2, S1, 1, 2, S1, 1, 2, S2, 3, S1, 3, S2, D");
}

TEST(StepOnChip, StreamifyStaticRepeat) {
    GraphBuilder b;
    Stream s = tileSource(b, "1, 2, S1, 3, 4, S1", Shape({Dim(2), Dim(2)}));
    Stream out = b.streamify(b.bufferize(s, 1), {2}, "streamify");
    EXPECT_EQ(out.shape().str(), "[2, 2, 2]");
    b.sink(out, "out");
    EXPECT_EQ(runToSink(b), "1, 2, S1, 1, 2, S2, 3, 4, S1, 3, 4, S2, D");
}

TEST(StepShape, Figure5ExpandFollowsTheReferenceShape) {
    GraphBuilder b;
    Stream in = tileSource(b, "1, S1, 2, S1", Shape({Dim(2), Dim(1)}));
    Stream ref = tileSource(b, "0, 0, 0, S1, 0, S1", Shape({Dim(2), Dim::ragged("D0")}), "ref");
    Stream e = b.expand(in, ref, 1, "expand");
    EXPECT_TRUE(e.shape().equals(ref.shape()));
    b.sink(e, "out");
    EXPECT_EQ(runToSink(b), "1, 1, 1, S1, 2, S1, D");
}

TEST(StepShape, ReshapePadsTheRaggedInnermostDimension) {
    GraphBuilder b;
    Stream s = tileSource(b, "1, 2, 3, 4, 5, S1, 6, S1", Shape({Dim(2), Dim::ragged("D0")}));
    auto [data, padding] = b.reshapeWithPadding(s, 2, "reshape");
    EXPECT_EQ(data.shape().numDims(), 3);
    EXPECT_EQ(data.shape().dims()[2].size.constValue(), 2);
    b.sink(data, "out");
    b.sink(padding, "pad");
    Graph g = b.finish();
    Interpreter interp;
    auto r = interp.run(g);
    // Padding tiles hold zeros; the padding stream marks them.
    EXPECT_EQ(streamString(r.sinks.at("out")), "1, 2, S1, 3, 4, S1, 5, 0, S2, 6, 0, S2, D");
    EXPECT_EQ(streamString(r.sinks.at("pad")), "0, 0, S1, 0, 0, S1, 0, 1, S2, 0, 1, S2, D");
}

TEST(StepShape, PromoteAddsOuterDimThatIsZeroForEmptyStreams) {
    GraphBuilder b;
    Stream s = tileSource(b, "1, 2", Shape({Dim::dynamic("N")}));
    Stream p = b.promote(s, std::nullopt, "promote");
    EXPECT_EQ(p.shape().dims()[0].size.eval({{"N", 0}}), 0);
    EXPECT_EQ(p.shape().dims()[0].size.eval({{"N", 5}}), 1);
    Stream empty = tileSource(b, "", Shape({Dim::dynamic("M")}), "empty");
    b.sink(p, "out");
    b.sink(b.promote(empty), "out2");
    Graph g = b.finish();
    Interpreter interp;
    auto r = interp.run(g);
    EXPECT_EQ(streamString(r.sinks.at("out")), "1, 2, S1, D");
    EXPECT_EQ(streamString(r.sinks.at("out2")), "D");
}

TEST(StepShape, ReshapeAddOuterChunksAndClosesTheNewOuterDimension) {
    GraphBuilder b;
    Stream ragged =
        b.reshapeAddOuter(tileSource(b, "1, 2, 3", Shape({Dim::dynamic("N")})), 2, true, "ragged");
    EXPECT_EQ(ragged.shape().numDims(), 3);
    EXPECT_EQ(ragged.shape().dims()[0].size.eval({{"N", 0}}), 0);
    EXPECT_EQ(ragged.shape().dims()[0].size.eval({{"N", 3}}), 1);
    Stream exact = b.reshapeAddOuter(tileSource(b, "1, 2, 3, 4", Shape({Dim(4)}), "s4"), 2, false, "exact");
    Stream empty = b.reshapeAddOuter(tileSource(b, "", Shape({Dim::dynamic("M")}), "s0"), 1, false, "empty");
    b.sink(ragged, "out");
    b.sink(exact, "out2");
    b.sink(empty, "out3");
    Graph g = b.finish();
    Interpreter interp;
    auto r = interp.run(g);
    // The last chunk (padded or not) carries the stop of the new outer dimension.
    EXPECT_EQ(streamString(r.sinks.at("out")), "1, 2, S1, 3, 0, S2, D");
    EXPECT_EQ(streamString(r.sinks.at("out2")), "1, 2, S1, 3, 4, S2, D");
    EXPECT_EQ(streamString(r.sinks.at("out3")), "D");
}

TEST(StepShape, ReshapeAddOuterNeedsARankZeroInput) {
    GraphBuilder b;
    Stream s = tileSource(b, "1, S1", Shape({Dim(1), Dim(1)}));
    EXPECT_THROW(b.reshapeAddOuter(s, 1, false, "bad"), BadInput);
}

TEST(StepShape, RepeatStaticAndZip) {
    GraphBuilder b;
    Stream s = tileSource(b, "1, 2, S1", Shape({Dim(1), Dim(2)}));
    Stream r = b.repeatStatic(s, 3, "rep");
    EXPECT_EQ(r.shape().str(), "[1, 2, 3]");
    b.sink(r, "out");
    EXPECT_EQ(runToSink(b), "1, 1, 1, S1, 2, 2, 2, S2, D");
}

TEST(StepHigherOrder, AccumScanAndMapOverStops) {
    GraphBuilder b;
    Stream s = tileSource(b, "1, 2, S1, 3, S1, S1", Shape({Dim(3), Dim::ragged("D0")}));
    Stream acc = b.accum(s, Function(Function::Kind::Add), InitFn::zero(1, 1), 1, {}, std::nullopt, "acc");
    EXPECT_EQ(acc.shape().str(), "[3]");
    Stream sq = b.map({acc, acc}, Function(Function::Kind::Mul), {}, "square");
    b.sink(sq, "out");
    Stream sc = b.scan(s, Function(Function::Kind::Add), InitFn::zero(1, 1), 1, {}, "scan");
    b.sink(sc, "scan_out");
    Graph g = b.finish();
    Interpreter interp;
    auto r = interp.run(g);
    // The empty inner vector (S1 right after S1) reduces to the initial value.
    EXPECT_EQ(streamString(r.sinks.at("out")), "9, 9, 0, D");
    EXPECT_EQ(streamString(r.sinks.at("scan_out")), "1, 3, S1, 3, S1, S1, D");
}

TEST(StepRouting, PartitionAndReassembleRoundTrip) {
    GraphBuilder b;
    Stream rows = tileSource(b, "10, 20, 30, 40, S1", Shape({Dim(1), Dim(4)}), "rows");
    Stream sel = b.selectGen({{0}, {1}, {0, 1}, {1}}, 2, Shape({Dim(1), Dim(4)}), "sel");
    auto parts = b.partition(rows, sel, 0, 2, "part");
    EXPECT_EQ(parts[0].shape().str(), "[part_000]");
    Stream sel2 = b.selectGen({{0}, {1}, {0, 1}, {1}}, 2, Shape({Dim(1), Dim(4)}), "sel2");
    Stream merged = b.reassemble(parts, sel2, 0, "reassemble");
    b.sink(merged, "out");
    EXPECT_EQ(runToSink(b), "10, S1, 20, S1, 30, 30, S1, 40, S2, D");
}

TEST(StepRouting, EmptyStreamsFlowThroughPartitionAccumAndReassemble) {
    GraphBuilder b;
    // Every row goes to expert 0; expert 1's stream is empty.
    Stream rows = tileSource(b, "1, 2, S1", Shape({Dim(1), Dim(2)}), "rows");
    Stream sel = b.selectGen({{0}, {0}}, 2, Shape({Dim(1), Dim(2)}), "sel");
    auto parts = b.partition(rows, sel, 0, 2, "part");
    std::vector<Stream> sums;
    for (int e = 0; e < 2; ++e) {
        Stream p = b.promote(parts[e]);
        sums.push_back(b.accum(p, Function(Function::Kind::Add), InitFn::zero(1, 1), 1, {}, std::nullopt,
                               "acc" + std::to_string(e)));
    }
    b.sink(sums[0], "out0");
    b.sink(sums[1], "out1");
    Stream e0 = tileSource(b, "", Shape({Dim::dynamic("N")}), "empty0");
    Stream e1 = tileSource(b, "", Shape({Dim::dynamic("N")}), "empty1");
    Stream esel = b.selectGen({}, 2, Shape({Dim::dynamic("N")}), "esel");
    b.sink(b.reassemble({e0, e1}, esel, 0, "reassemble"), "out2");
    Graph g = b.finish();
    Interpreter interp;
    auto r = interp.run(g);
    EXPECT_EQ(streamString(r.sinks.at("out0")), "3, D");
    EXPECT_EQ(streamString(r.sinks.at("out1")), "D");
    EXPECT_EQ(streamString(r.sinks.at("out2")), "D");
}

TEST(StepRouting, EagerMergeTagsEachChunkWithItsSource) {
    GraphBuilder b;
    Stream a = tileSource(b, "1, 2", Shape({Dim(2)}), "a");
    Stream c = tileSource(b, "3", Shape({Dim(1)}), "c");
    auto [data, sel] = b.eagerMerge({a, c}, 0, "merge");
    EXPECT_EQ(data.shape().str(), "[3]");
    b.sink(data, "out");
    b.sink(sel, "sel");
    Graph g = b.finish();
    Interpreter interp;
    auto r = interp.run(g);
    EXPECT_EQ(r.sinks.at("out").size(), 4u);
    std::vector<float> values;
    std::string sources;
    for (std::size_t i = 0; i < 3; ++i) {
        values.push_back(r.sinks.at("out")[i].value.tile().at(0, 0));
        sources += r.sinks.at("sel")[i].str();
    }
    // Each chunk's selector names the input it came from.
    for (std::size_t i = 0; i < 3; ++i)
        EXPECT_EQ(values[i] == 3.0f, sources.substr(i * 3, 3) == "(1)");
}

TEST(StepRouting, ParallelizeRoundRobin) {
    GraphBuilder b;
    Stream s = tileSource(b, "1, 2, 3", Shape({Dim(3)}));
    auto outs = b.parallelize(s, 2, "par");
    EXPECT_EQ(outs[0].shape().str(), "[2]");
    EXPECT_EQ(outs[1].shape().str(), "[1]");
    b.sink(outs[0], "out");
    b.sink(outs[1], "out1");
    EXPECT_EQ(runToSink(b), "1, 3, D");
}

TEST(StepGraph, FanOutGetsABroadcast) {
    GraphBuilder b;
    Stream s = tileSource(b, "1, 2", Shape({Dim(2)}));
    b.sink(s, "out");
    b.sink(s, "out2");
    Graph g = b.finish();
    EXPECT_GE(g.findOp("src.bcast"), 0);
}
