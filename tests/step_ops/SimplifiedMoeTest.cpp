// The paper's simplified two-expert MoE (§3.3, Figures 6 and 7, Listing 1): rows of a [10, 64] input are
// routed to one of two experts, packed into tiles, multiplied by the expert's [64, 256] weight (loaded as
// 64x64 tiles once per packed tile), unpacked and reassembled. Output must equal x[r] @ W[sel[r]].
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "step_ops/GraphBuilder.h"
#include "step_ops/Interpreter.h"
#include "step_ops/TensorStore.h"

using namespace steprdu::step;

namespace {

constexpr int kRows = 10, kD = 64, kN = 256, kExperts = 2;

// tile = 0 means dynamic tiling: Promote takes the first Reshape's place and packs all of an expert's rows.
double runSimplifiedMoe(int tile, const std::vector<int>& route, std::uint64_t seed) {
    GraphBuilder b;
    auto x = randomNormal(kRows * kD, seed);
    b.tensor("x", kRows, kD, x);
    std::vector<std::vector<float>> w;
    for (int e = 0; e < kExperts; ++e) {
        w.push_back(randomNormal(kD * kN, seed + 1 + e));
        b.tensor("W_" + std::to_string(e), kD, kN, w.back());
    }
    b.tensor("out", kRows, kN);
    std::vector<std::vector<int>> sel;
    for (int r : route)
        sel.push_back({r});
    Stream in = b.linearOffChipLoad("x", 1, kD, {1, 1}, {kRows, 1}, std::nullopt, 0, 1, "in_stream");
    Stream selector = b.selectGen(sel, kExperts, Shape({Dim(1), Dim(kRows)}), "selector");
    auto partition = b.partition(in, selector, 1, kExperts, "partition");
    std::vector<Stream> experts;
    for (int i = 0; i < kExperts; ++i) {
        std::string p = "e" + std::to_string(i) + ".";
        Stream rows = b.flatten(partition[i], 0, 1, p + "flatten_in");
        Expr di = partition[i].shape().dims()[0].size;
        Stream packed;
        if (tile > 0) {
            Stream chunks = b.reshape(rows, tile, 0, true, p + "reshape_to_tile");
            packed = b.accum(chunks, Function(Function::Kind::RetileRow), InitFn::empty(kD), 1, {},
                             TileType{tile, kD}, p + "collect_rows");
        } else {
            Stream one = b.promote(rows, std::nullopt, p + "promote");
            packed = b.accum(one, Function(Function::Kind::RetileRow), InitFn::empty(kD), 1, {},
                             TileType{di, kD}, p + "collect_rows");
        }
        Stream weights = b.flatten(b.linearOffChipLoad("W_" + std::to_string(i), 64, 64, {4, 1}, {1, 4},
                                                       packed, 0, 1, p + "weight_load"),
                                   0, 1, p + "flatten_w");
        Stream expanded = b.expand(b.promote(packed, 0, p + "reshape_in"), weights, 1, p + "expand_in");
        Stream product = b.map({expanded, weights}, Function::matmul(), {1024, false}, p + "matmul_map");
        Stream cols = b.accum(product, Function(Function::Kind::RetileCol), InitFn::empty(kD), 1, {},
                              TileType{tile > 0 ? Expr(tile) : di, kN}, p + "collect_cols");
        Stream unpacked = b.retileStreamify(cols, true, true, p + "retile_streamify");
        unpacked.setShape(Shape({Dim(di, DimKind::Dynamic)}));
        experts.push_back(unpacked);
    }
    Stream output = b.reassemble(experts, selector, 0, "reassemble");
    b.linearOffChipStore(output, "out", 1, "store");
    Graph g = b.finish();
    Interpreter interp(true);
    interp.run(g);
    const auto& got = interp.memory().values("out");
    std::vector<double> want(kRows * kN);
    for (int r = 0; r < kRows; ++r)
        for (int n = 0; n < kN; ++n) {
            double s = 0;
            for (int d = 0; d < kD; ++d)
                s += double(x[r * kD + d]) * w[route[r]][d * kN + n];
            want[r * kN + n] = s;
        }
    // Norm-wise relative error ||got - want|| / ||want||: float32 sums of 64 products against a double
    // reference.
    double num = 0, den = 0;
    for (int i = 0; i < kRows * kN; ++i) {
        num += (got[i] - want[i]) * (got[i] - want[i]);
        den += want[i] * want[i];
    }
    return std::sqrt(num / den);
}

} // namespace

class SimplifiedMoe : public ::testing::TestWithParam<int> {};

TEST_P(SimplifiedMoe, MatchesDirectComputationOnRandomRouting) {
    std::mt19937 rng(1234);
    for (int trial = 0; trial < 3; ++trial) {
        std::vector<int> route(kRows);
        for (auto& r : route)
            r = static_cast<int>(rng() % kExperts);
        EXPECT_LE(runSimplifiedMoe(GetParam(), route, 100 + trial), 1e-4) << "trial " << trial;
    }
}

TEST_P(SimplifiedMoe, HandlesAnExpertWithNoRows) {
    std::vector<int> route(kRows, 0);
    EXPECT_LE(runSimplifiedMoe(GetParam(), route, 7), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(StepTileSizes, SimplifiedMoe, ::testing::Values(1, 4, 16, 0), [](const auto& info) {
    return info.param ? "tile" + std::to_string(info.param) : std::string("dynamic");
});
