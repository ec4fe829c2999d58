// The unfused baseline (decoder fusion=operator): a layer as one kernel per PyTorch-level operator, each
// kernel's values against a direct computation at a reduced size, the shapes derived by hand, and the
// kernels it builds from (gemm's regions, elementwise) on their own.
#include <gtest/gtest.h>

#include "tests/testbenches/TestbenchChecks.h"

using namespace steprdu;

namespace {

// 4 heads of 8 over 2 KV heads (hidden 32), a dense FFN of 64, 2 tokens at KV length 40 in tiles of 8.
const std::vector<std::string> kSmall{"model=llama2", "fusion=operator", "hidden=32",   "heads=4",
                                      "kv_heads=2",   "head_dim=8",      "inter=64",    "batch=2",
                                      "kv_len=40",    "kv_tile=8",       "op_regions=2"};

std::vector<tb::KernelCall> kernelsOf(std::vector<std::string> extra) {
    auto knobs = kSmall;
    knobs.insert(knobs.end(), extra.begin(), extra.end());
    const auto& t = tb::findTestbench("decoder");
    return t.kernels(tb::Knobs("decoder", t.knobs(), knobs));
}

std::string knob(const tb::KernelCall& c, const std::string& key) {
    for (const auto& kv : c.knobs)
        if (kv.rfind(key + "=", 0) == 0) return kv.substr(key.size() + 1);
    return "";
}

} // namespace

TEST(TbUnfused, ALayerIsThirteenOperatorKernelsInPyTorchOrder) {
    const auto calls = kernelsOf({"layers=3"});
    ASSERT_EQ(calls.size(), 39u);
    const std::vector<std::string> names = {"q_proj",         "k_proj",  "v_proj",  "k_cache_append",
                                            "v_cache_append", "scores",  "softmax", "context",
                                            "gate_proj",      "up_proj", "silu",    "mul",
                                            "down_proj"};
    for (std::size_t i = 0; i < calls.size(); ++i)
        EXPECT_EQ(calls[i].name, names[i % 13]);
}

// Decode: 2 tokens x 2 KV heads = 4 requests of 2 queries each; keys 40 + the new row = 41, in whole tiles
// of 8: 48. q_proj 2 x 32 by 32 x 32, k_proj 32 x 16; scores 4 products of 2 x 8 by 8 x 48; softmax 8 rows
// of 48; context 4 of 2 x 48 by 48 x 8; the cache appends 4 rows of 8 bf16 = 64 bytes.
TEST(TbUnfused, DecodeShapesByHand) {
    const auto c = kernelsOf({});
    EXPECT_EQ(knob(c[0], "m"), "2");
    EXPECT_EQ(knob(c[0], "n"), "32");
    EXPECT_EQ(knob(c[1], "n"), "16");
    EXPECT_EQ(c[3].testbench, "copy");
    EXPECT_EQ(knob(c[3], "bytes"), "64");
    EXPECT_EQ(knob(c[5], "batch"), "4");
    EXPECT_EQ(knob(c[5], "m"), "2");
    EXPECT_EQ(knob(c[5], "k"), "8");
    EXPECT_EQ(knob(c[5], "n"), "48");
    EXPECT_EQ(knob(c[5], "split"), "batch");
    EXPECT_EQ(knob(c[6], "rows"), "8");
    EXPECT_EQ(knob(c[6], "cols"), "48");
    EXPECT_EQ(knob(c[7], "k"), "48");
    EXPECT_EQ(knob(c[7], "n"), "8");
    EXPECT_EQ(knob(c[8], "n"), "64");
    EXPECT_EQ(knob(c[12], "k"), "64");
    EXPECT_EQ(knob(c[12], "n"), "32");
}

// Prefill: a prompt of 40 tokens per sequence, its 40 keys in tiles of 8 (40): the projections take 80
// rows, the scores 4 products of 2 x 40 = 80 query rows by 40 keys.
TEST(TbUnfused, PrefillShapesByHand) {
    const auto c = kernelsOf({"phase=prefill"});
    EXPECT_EQ(knob(c[0], "m"), "80");
    EXPECT_EQ(knob(c[3], "bytes"), std::to_string(4 * 40 * 8 * 2));
    EXPECT_EQ(knob(c[5], "m"), "80");
    EXPECT_EQ(knob(c[5], "n"), "40");
    EXPECT_EQ(knob(c[6], "rows"), "320");
}

TEST(TbUnfused, EveryKernelMatchesADirectComputation) {
    for (const auto& c : kernelsOf({})) {
        SCOPED_TRACE(c.name);
        test::expectFunctional(c.testbench, c.knobs, 1e-5);
    }
}

TEST(TbUnfused, TheKernelsRegionsLeaveTheValuesOfOne) {
    test::expectFunctional(
        "gemm",
        {"batch=4", "m=8", "k=64", "n=32", "tile_m=8", "tile_k=32", "tile_n=8", "regions=2", "split=batch"},
        1e-5);
    test::expectFunctional("gemm", {"m=8", "k=64", "n=32", "tile_m=4", "tile_k=32", "tile_n=8", "regions=4"},
                           1e-5);
    for (const char* op : {"op=silu", "op=mul", "op=softmax"}) {
        SCOPED_TRACE(op);
        test::expectFunctional("elementwise", {op, "rows=16", "cols=24", "tile_rows=4", "regions=2"}, 1e-5);
    }
}

TEST(TbUnfused, OneGraphOrAMoEIsRefusedByName) {
    test::expectRefusedByName("decoder", {"model=llama2", "fusion=operator"}, "fusion");
    test::expectRefusedByName("decoder", {"model=llama2", "phase=prefill"}, "phase");
    const auto& t = tb::findTestbench("decoder");
    EXPECT_THROW(t.kernels(tb::Knobs("decoder", t.knobs(),
                                     {"model=llama2", "fusion=operator", "phase=prefill", "batch=1048576",
                                      "kv_len=1073741824"})),
                 BadInput); // sizes beyond what any kernel could hold, refused before they overflow
    try {
        kernelsOf({"experts=2"});
        ADD_FAILURE() << "an MoE was unfused";
    } catch (const BadInput& e) {
        EXPECT_NE(std::string(e.what()).find("dense model"), std::string::npos) << e.what();
    }
}
