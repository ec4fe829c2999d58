// Whole decoder layers at a reduced size: QKV generation, attention and the MoE fused in one graph leave
// exactly a direct computation's values, for every variant and across layers; the variants take the
// paper's settings (5.5); bad knobs are refused by name.
#include <gtest/gtest.h>
#include <map>
#include <string>

#include "tests/testbenches/TestbenchChecks.h"

using namespace steprdu;

namespace {
// 4 heads of 8 over 2 KV heads (hidden 32), 4 experts of inter 32, 8 tokens of the bundled KV trace.
const std::vector<std::string> kSmall{"hidden=32", "heads=4",    "kv_heads=2",  "head_dim=8",
                                      "experts=4", "topk=2",     "inter=32",    "tile_f=16",
                                      "batch=8",   "max_n=4096", "elem_bytes=4"};

tb::Workload build(std::vector<std::string> knobs, bool functional = true) {
    return test::buildTestbench("decoder", knobs, functional);
}

void expectExact(std::vector<std::string> extra) {
    auto knobs = kSmall;
    knobs.insert(knobs.end(), extra.begin(), extra.end());
    // float32 host math against a double reference through three parts: ~4e-7 in practice.
    test::expectFunctional("decoder", knobs, 1e-5);
}
} // namespace

TEST(TbDecoder, EveryVariantMatchesADirectComputation) {
    for (const char* v : {"variant=memory_matched", "variant=performance_matched", "variant=optimized"}) {
        SCOPED_TRACE(v);
        expectExact({v});
    }
}

TEST(TbDecoder, LayersChainThroughTheirOwnWeightsAndCaches) {
    expectExact({"variant=optimized", "layers=2"});
    expectExact({"variant=memory_matched", "layers=3"});
}

TEST(TbDecoder, TimeMultiplexedExpertRegions) {
    expectExact({"variant=optimized", "regions=2"});
    expectExact({"variant=memory_matched", "regions=2", "tile_n=4"});
}

TEST(TbDecoder, VariantsTakeThePapersSettings) {
    auto params = [](std::vector<std::string> knobs) { return build(knobs, false).params; };
    auto p = params({"variant=memory_matched"});
    EXPECT_EQ(p["tile_n"], 16);
    EXPECT_EQ(p["attention_strategy"], "interleaved");
    EXPECT_EQ(p["regions"], 8);
    p = params({"variant=performance_matched"});
    EXPECT_EQ(p["tile_n"], 32);
    p = params({"variant=optimized"});
    EXPECT_EQ(p["tile_n"], "dynamic");
    EXPECT_EQ(p["attention_strategy"], "dynamic");
    EXPECT_EQ(p["regions"], 8); // no time-multiplexing for Mixtral: all its experts are active at batch 64
    p = params({"model=qwen", "variant=memory_matched"});
    EXPECT_EQ(p["tile_n"], 8);
    EXPECT_EQ(p["regions"], 128);
    EXPECT_EQ(p["heads"].get<int>() * p["head_dim"].get<int>(), p["hidden"].get<int>());
    p = params({"model=qwen", "variant=performance_matched"});
    EXPECT_EQ(p["tile_n"], 64);
    p = params({"model=qwen", "variant=optimized"});
    EXPECT_EQ(p["regions"], 32); // Fig 12's highlighted point
    EXPECT_EQ(p["batch"], 64);
}

// Llama2's layer (its mapping, docs/system.md): the dense FFN in column slices that every token takes with
// weight 1, QKV in column groups, more attention regions; the values stay the dense layer's. Small: 4 heads
// of 8 (hidden 32), an FFN of 64 in 8 slices of 8, 8 tokens.
TEST(TbDecoder, Llama2SlicesAndGroupsLeaveTheDenseLayersValues) {
    const std::vector<std::string> small{"model=llama2", "hidden=32",  "heads=4",
                                         "kv_heads=4",   "head_dim=8", "inter=64",
                                         "batch=8",      "max_n=4096", "elem_bytes=4"};
    test::expectFunctional("decoder", small, 1e-5);
    auto more = small;
    more.insert(more.end(), {"ffn_slices=4", "qkv_groups=2", "attention_regions=2", "layers=2"});
    test::expectFunctional("decoder", more, 1e-5);
    auto p = build(small, false).params;
    EXPECT_EQ(p["ffn_slices"], 8);
    EXPECT_EQ(p["experts"], 8);
    EXPECT_EQ(p["inter"], 8); // each slice's columns
    EXPECT_EQ(p["qkv_groups"], 4);
    EXPECT_EQ(p["qkv_regions"], 1);
    EXPECT_EQ(p["load_par"], 4);
    p = build({}, false).params; // Mixtral keeps the artifact's settings
    EXPECT_EQ(p["ffn_slices"], 1);
    EXPECT_EQ(p["qkv_groups"], 1);
    EXPECT_EQ(p["load_par"], 1);
    EXPECT_EQ(p["attention_compute_bw"], 2048);
}

// Llama 3.1 8B: Llama2's mapping with grouped-query attention (8 KV heads of 32) and an FFN of 14336; at
// batch 1 its 8 (token, KV head) requests leave 4 attention regions of two. The values stay the dense
// layer's at a reduced size with 4 queries per KV head.
TEST(TbDecoder, Llama3IsLlama2sMappingWithGroupedQueries) {
    auto p = build({"model=llama3", "batch=1", "kv_len=64"}, false).params;
    EXPECT_EQ(p["hidden"], 4096);
    EXPECT_EQ(p["heads"], 32);
    EXPECT_EQ(p["kv_heads"], 8);
    EXPECT_EQ(p["inter"], 14336 / 8); // each of the 8 slices' columns
    EXPECT_EQ(p["qkv_groups"], 8);    // gcd(16, 32, 8)
    EXPECT_EQ(p["attention_regions"], 4);
    EXPECT_EQ(p["qkv_tile_k"], 1024);
    EXPECT_EQ(build({"model=llama3", "batch=8", "kv_len=64"}, false).params["attention_regions"], 16);
    // The cache stride: the paper's 6464 unless a KV length needs more, then the first whole tile above it.
    EXPECT_EQ(p["max_n"], 6464);
    EXPECT_EQ(build({"model=llama3", "batch=1", "kv_len=8192"}, false).params["max_n"], 8224);
    EXPECT_EQ(build({"model=llama3", "batch=1", "kv_len=8192", "kv_tile=64"}, false).params["max_n"], 8256);
    test::expectFunctional("decoder",
                           {"model=llama3", "hidden=32", "heads=8", "kv_heads=2", "head_dim=4", "inter=64",
                            "batch=4", "max_n=4096", "elem_bytes=4"},
                           1e-5);
}

TEST(TbDecoder, BadKnobsAreRefusedByName) {
    auto refused = [](std::vector<std::string> knobs, const std::string& knob) {
        test::expectRefusedByName("decoder", knobs, knob);
    };
    refused({"variant=fastest"}, "variant");
    refused({"layers=0"}, "layers");
    refused({"hidden=1024"}, "hidden");
    refused({"kv_trace=bundled:kv_b16_seed5.csv"}, "kv_trace"); // 16 requests for 64 routed tokens
    refused({"max_n=100"}, "max_n");
    refused({"qkv_tile_k=3"}, "qkv_tile_k"); // does not divide hidden
}

// Cutting the QKV tiles along hidden changes only how the reduction is streamed, not the layer's values.
TEST(TbDecoder, QkvTilesCutAlongHiddenLeaveTheValues) {
    const std::vector<std::string> small{"model=llama2", "hidden=32",   "heads=4", "kv_heads=4",
                                         "head_dim=8",   "inter=64",    "batch=8", "max_n=4096",
                                         "elem_bytes=4", "qkv_tile_k=8"};
    test::expectFunctional("decoder", small, 1e-5);
    EXPECT_EQ(build(small, false).params["qkv_tile_k"], 8);
    EXPECT_EQ(build({}, false).params["qkv_tile_k"], 4096); // default: one tile of the whole hidden
    EXPECT_EQ(build({"model=llama2", "batch=1", "kv_len=64"}, false).params["qkv_tile_k"], 1024);
    EXPECT_EQ(build({"model=llama2", "hidden=1536", "heads=12", "kv_heads=12", "head_dim=128",
                     "attention_regions=4", "batch=1", "kv_len=64"},
                    false)
                  .params["qkv_tile_k"],
              768);
}

// moe_matmul_bw sizes the FFN's up, gate and down matmuls alone; silu and mul keep moe_compute_bw, and the
// values are the layer's.
TEST(TbDecoder, FfnMatmulsTakeTheirOwnBandwidth) {
    const std::vector<std::string> small{
        "model=llama2", "hidden=32",  "heads=4",      "kv_heads=4",         "head_dim=8",       "inter=64",
        "batch=8",      "max_n=4096", "elem_bytes=4", "moe_compute_bw=256", "moe_matmul_bw=512"};
    test::expectFunctional("decoder", small, 1e-5);
    const auto w = build(small, false);
    EXPECT_EQ(w.params["moe_matmul_bw"], 512);
    std::map<std::string, int> seen;
    auto endsWith = [](const std::string& s, const std::string& t) {
        return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
    };
    for (int i = 0; i < w.graph.numOps(); ++i) {
        const auto& op = w.graph.op(i);
        for (const char* part : {".up", ".gate", ".down", ".silu", ".mul"})
            if (endsWith(op.name(), part)) {
                ++seen[part];
                SCOPED_TRACE(op.name());
                const bool matmul = std::string(part) != ".silu" && std::string(part) != ".mul";
                EXPECT_EQ(op.computeBw(), matmul ? 512 : 256);
            }
    }
    for (const char* part : {".up", ".gate", ".down", ".silu", ".mul"})
        EXPECT_EQ(seen[part], 8) << part;                                    // one per FFN slice
    EXPECT_EQ(build({"model=llama2"}, false).params["moe_matmul_bw"], 2048); // default: moe_compute_bw
}
