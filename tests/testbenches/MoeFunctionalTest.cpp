// The moe and swiglu graphs at reduced sizes on the functional interpreter: outputs equal a direct
// computation and the off-chip bytes the run moved equal the symbolic traffic.
#include <gtest/gtest.h>

#include "step_ops/Metrics.h"
#include "testbenches/Testbench.h"

using namespace steprdu;

namespace {
void expectFunctional(const std::string& testbench, const std::vector<std::string>& knobs) {
    const auto& t = tb::findTestbench(testbench);
    auto w = t.build(tb::Knobs(t.name(), t.knobs(), knobs), true);
    ASSERT_TRUE(w.params.value("functional", true));
    step::Interpreter interp(true);
    auto r = interp.run(w.graph);
    // float32 host math against a double reference: ~1e-6 in practice.
    EXPECT_LE(w.check(interp.memory()), 1e-4);
    auto m = step::bindMetrics(w.graph, step::analyzeGraph(w.graph), w.bindings);
    EXPECT_EQ(r.offChipReadBytes + r.offChipWriteBytes, m.offChipBytes);
}
} // namespace

TEST(TbMoeFunctional, StaticTilingMatchesDirectComputation) {
    expectFunctional("moe", {"hidden=64", "inter=128", "tile_f=32", "tile_n=4", "elem_bytes=4"});
}

TEST(TbMoeFunctional, DynamicTilingMatchesDirectComputation) {
    expectFunctional("moe", {"hidden=64", "inter=128", "tile_f=32", "tile_n=dynamic", "elem_bytes=4"});
}

TEST(TbMoeFunctional, TimeMultiplexedRegionsMatchDirectComputation) {
    expectFunctional("moe", {"hidden=64", "inter=128", "tile_f=32", "tile_n=8", "regions=2", "elem_bytes=4"});
    expectFunctional("moe",
                     {"hidden=64", "inter=128", "tile_f=32", "tile_n=dynamic", "regions=4", "elem_bytes=4"});
}

TEST(TbMoeFunctional, QwenShapedRoutingWithUnusedExperts) {
    expectFunctional(
        "moe", {"model=qwen", "hidden=32", "inter=64", "tile_f=32", "tile_n=4", "batch=16", "elem_bytes=4"});
}

TEST(TbSwigluFunctional, MatchesDirectComputation) {
    expectFunctional("swiglu", {"tile_b=16", "tile_inter=128"});
}
