// The QKV generation graph at a reduced size: the values it stores equal x times the fused weight, rows where
// the attention graph reads them, and the bytes it moves follow from its schedule.
#include <gtest/gtest.h>

#include "step_ops/Metrics.h"
#include "tests/testbenches/TestbenchChecks.h"

using namespace steprdu;

namespace {
const std::vector<std::string> kSmall{"hidden=64", "heads=8",   "kv_heads=2",  "head_dim=16",
                                      "batch=8",   "regions=4", "elem_bytes=4"};

tb::Workload build(std::vector<std::string> knobs, bool functional = true) {
    return test::buildTestbench("qkv", knobs, functional);
}
} // namespace

TEST(TbQkv, StoresTheProductOfXAndTheFusedWeight) {
    for (const char* tileK : {"tile_k=64", "tile_k=16"}) {
        SCOPED_TRACE(tileK);
        auto knobs = kSmall;
        knobs.push_back(tileK);
        test::expectFunctional("qkv", knobs, 1e-5); // float32 sums of 64 terms against double
    }
}

TEST(TbQkv, MovesTheWeightsOnceAndXOncePerHead) {
    // hidden 64, 8 + 2 x 2 = 12 head column blocks of 16: the weight (64 x 192 x 4 B = 49,152) is read once
    // and broadcast to the regions; each region re-reads its 2 x 64 rows of x for every head block (8 x 64
    // x 4 B x 12 = 24,576); the results are written once (8 x 192 x 4 B = 6,144).
    auto w = build(kSmall, false);
    auto m = step::bindMetrics(w.graph, step::analyzeGraph(w.graph), w.bindings);
    EXPECT_EQ(m.offChipBytes, 49152 + 24576 + 6144);
    EXPECT_EQ(w.figureFlops, 2 * 8 * 64 * 192);
}

TEST(TbQkv, BadKnobsAreRefusedByName) {
    test::expectRefusedByName("qkv", {"heads=8", "kv_heads=3"}, "kv_heads");
    test::expectRefusedByName("qkv", {"batch=6", "regions=4"}, "regions");
    test::expectRefusedByName("qkv", {"hidden=64", "tile_k=24"}, "tile_k");
}
