// The moe and swiglu graphs at reduced sizes on the functional interpreter: outputs equal a direct
// computation and the off-chip bytes the run moved equal the symbolic traffic.
#include <gtest/gtest.h>

#include "tests/testbenches/TestbenchChecks.h"

using namespace steprdu;

namespace {
// float32 host math against a double reference: ~1e-6 in practice.
void expectFunctional(const std::string& testbench, const std::vector<std::string>& knobs) {
    test::expectFunctional(testbench, knobs, 1e-4);
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
