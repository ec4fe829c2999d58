// Operators run against a scripted OpIO whose inputs arrive at given times, and the remaining operators and
// functions through the interpreter.
#include <deque>
#include <map>

#include <gtest/gtest.h>

#include "StreamHelpers.h"
#include "step_ops/TensorStore.h"

using namespace steprdu;
using namespace steprdu::step;
using steprdu::test::runToSink;
using steprdu::test::tileSource;

namespace {

// Inputs are pre-filled; each token has an arrival time, and firstAvailable picks the earliest next token.
class ScriptedIO : public OpIO {
  public:
    ScriptedIO(const Graph& g, std::vector<std::vector<std::pair<int, Token>>> inputs, int outputs)
        : out(outputs), store_(g, true) {
        for (auto& in : inputs)
            in_.emplace_back(in.begin(), in.end());
    }
    using OpIO::peek;
    const Token& peek(int i, int ahead) override { return in_.at(i).at(ahead).second; }
    Token pop(int i) override {
        Token t = in_.at(i).front().second;
        in_[i].pop_front();
        return t;
    }
    void push(int o, Token t) override { out.at(o).push_back(std::move(t)); }
    int firstAvailable(const std::vector<int>& ins) override {
        int best = ins.front();
        for (int i : ins)
            if (in_[i].front().first < in_[best].front().first) best = i;
        return best;
    }
    bool functional() const override { return true; }
    TensorStore& memory() override { return store_; }

    std::vector<std::vector<Token>> out;

  private:
    TensorStore store_;
    std::vector<std::deque<std::pair<int, Token>>> in_;
};

Token tile(float v) {
    Tile t = Tile::zeros(1, 1, true);
    const_cast<std::vector<float>&>(*t.data)[0] = v;
    return Token::data(t);
}

} // namespace

TEST(StepRouting, Figure4ReassembleCollectsInArrivalOrderWithoutInterleaving) {
    // Eight rank-1 inputs; input 0 holds W X (two chunks), input 7 holds Y Z. Selectors: (0), then (0, 7).
    GraphBuilder b;
    std::vector<Stream> ins;
    for (int i = 0; i < 8; ++i)
        ins.push_back(tileSource(b, "1, S1", Shape({Dim::dynamic("n" + std::to_string(i)), Dim(1)}),
                                 "in" + std::to_string(i)));
    Stream sel = b.selectGen({{0}, {0, 7}}, 8, Shape({Dim(2)}), "sel");
    b.sink(b.reassemble(ins, sel, 1, "reassemble"), "out");
    Graph& g = b.graph();
    int op = g.findOp("reassemble");
    std::vector<std::vector<std::pair<int, Token>>> inputs(9);
    // Input 0: chunk W (arrives t=0), chunk X (t=3). Input 7: Y (t=1), Z (t=2) in one chunk.
    inputs[0] = {{0, tile(1)}, {0, Token::stop(1)}, {3, tile(2)}, {3, Token::stop(1)}, {9, Token::done()}};
    inputs[7] = {{1, tile(3)}, {2, tile(4)}, {2, Token::stop(1)}, {9, Token::done()}};
    for (int i = 1; i < 7; ++i)
        inputs[i] = {{9, Token::done()}};
    Selector s0{8, {0}}, s1{8, {0, 7}};
    inputs[8] = {{0, Token::data(s0)}, {0, Token::data(s1)}, {9, Token::done()}};
    ScriptedIO io(g, inputs, 1);
    g.op(op).run(io);
    // Second selector: input 7 arrives first (t=1 < t=3) and is drained whole before input 0's chunk.
    EXPECT_EQ(streamString(io.out[0]), "1, S2, 3, 4, S1, 2, S2, D");
}

TEST(StepOffChip, RandomLoadAndStoreByTileIndex) {
    GraphBuilder b;
    std::vector<float> v(4 * 2);
    for (int i = 0; i < 8; ++i)
        v[i] = static_cast<float>(i);
    b.tensor("T", 4, 2, v); // 1x2 tiles: tile i holds {2i, 2i+1}
    b.tensor("O", 4, 2);
    Stream addr = b.metadataGen({3, 0, 2}, Shape({Dim(3)}), "addr");
    Stream tiles = b.randomOffChipLoad(addr, "T", 1, 2, 0, 0, "rload");
    Stream waddr = b.metadataGen({1, 2, 0}, Shape({Dim(3)}), "waddr");
    Stream ack = b.randomOffChipStore(waddr, tiles, "O", 0, "rstore");
    b.sink(ack, "out");
    Graph g = b.finish();
    Interpreter interp;
    auto r = interp.run(g);
    EXPECT_EQ(streamString(r.sinks.at("out")), "1, 1, 1, D");
    // Tile 3 -> slot 1, tile 0 -> slot 2, tile 2 -> slot 0.
    EXPECT_EQ(interp.memory().values("O"), (std::vector<float>{4, 5, 6, 7, 0, 1, 0, 0}));
    EXPECT_EQ(r.offChipReadBytes, 3 * 8);
    EXPECT_EQ(r.offChipWriteBytes, 3 * 8);
}

TEST(StepFlatMap, ExpertAddrGenEmitsEachExpertsWeightTiles) {
    GraphBuilder b;
    Stream sel = b.selectGen({{1}, {0}}, 2, Shape({Dim(2)}), "sel");
    Stream a = b.expertAddrGen(sel, 3, 0, "addr");
    EXPECT_EQ(a.shape().str(), "[2, 3, 1]");
    b.sink(a, "out");
    EXPECT_EQ(runToSink(b), "3, S1, 4, S1, 5, S2, 0, S1, 1, S1, 2, S2, D");
}

TEST(StepFlatMap, CacheReadAddrGenAndFilterLastTile) {
    GraphBuilder b;
    Stream idx = b.metadataGen({2, 5}, Shape({Dim(2)}), "idx");
    Stream count = b.metadataGen({3, 1}, Shape({Dim(2)}), "count");
    Stream a = b.cacheReadAddrGen(idx, count, 100, "cache_read");
    b.sink(a, "out");
    b.sink(b.filterLastTile(count, "last"), "last_out");
    Graph g = b.finish();
    Interpreter interp;
    auto r = interp.run(g);
    EXPECT_EQ(streamString(r.sinks.at("out")), "200, 201, 202, S1, 500, S1, D");
    EXPECT_EQ(streamString(r.sinks.at("last_out")), "(1), (1), (0), S1, (0), S1, D");
}

TEST(StepFlatMap, RetileStreamifyDropsPaddingRows) {
    GraphBuilder b;
    Stream s = tileSource(b, "1, 2, 3", Shape({Dim::dynamic("N")}));
    Stream packed = b.accum(b.promote(b.reshape(s, 2, 0, true)), Function(Function::Kind::RetileRow),
                            InitFn::empty(1), 1, {}, TileType{2, 1});
    // [1, 2] packed tiles (the second padded with one zero row) unpack to the 3 real rows.
    b.sink(b.retileStreamify(packed, true, true, "unpack"), "out");
    EXPECT_EQ(runToSink(b), "1, 2, 3, S1, D");
}

TEST(StepFunctions, AttentionMetadataFunctions) {
    Tile t = Tile::zeros(4, 2, true);
    t.validRows = 1;
    Tile row = Tile::zeros(1, 2, true);
    const_cast<std::vector<float>&>(*row.data) = {7, 8};
    Element appended = Function(Function::Kind::RowWiseAppend).apply({t, row}, true);
    EXPECT_EQ(appended.tile().validRows, 2);
    EXPECT_EQ(appended.tile().at(1, 0), 7);
    EXPECT_EQ(Function(Function::Kind::SetOffset).apply({t, Scalar{3}}, true).tile().validRows, 3);
    // Request 2's last tile of 6: 2 * 202 + 5.
    EXPECT_EQ(Function::cacheWriteAddrGen(202).apply({Scalar{2}, Scalar{6}}, true).scalar(), 409u);
    EXPECT_EQ(Function(Function::Kind::SignalReqAllRead).apply({Scalar{4}, t}, true).scalar(), 5u);
    EXPECT_EQ(Function(Function::Kind::RowWiseAppend).fixedCycles(), 1);
    EXPECT_EQ(Function(Function::Kind::RetileRow).fixedCycles(), 0);
}

TEST(StepFunctions, FlopRulesOfThePublishedSimulator) {
    auto tileT = [](int r, int c) { return DataType::makeTile(r, c); };
    EXPECT_EQ(Function::matmul().flops({tileT(16, 4096), tileT(4096, 64)}).constValue(),
              2LL * 16 * 4096 * 64);
    EXPECT_EQ(Function::matmul(true).flops({tileT(8, 64), tileT(32, 64)}).constValue(), 2LL * 8 * 64 * 32);
    EXPECT_EQ(Function(Function::Kind::Silu).flops({tileT(16, 64)}).constValue(), 8 * 16 * 64);
    EXPECT_EQ(Function(Function::Kind::Exp).flops({tileT(8, 32)}).constValue(), 4 * 8 * 32);
    EXPECT_EQ(Function(Function::Kind::Mul).flops({tileT(1, 64), tileT(1, 1)}).constValue(), 64);
    EXPECT_EQ(Function(Function::Kind::RowWiseSum).flops({tileT(8, 32)}).constValue(), 8 * 32);
}
