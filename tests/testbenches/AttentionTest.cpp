// The attention testbench: functional runs on the interpreter (outputs and the written-back KV caches equal
// a direct computation, simulated traffic equals the symbolic one), knob and trace validation, and the
// symbolic off-chip traffic of a real KV trace against its closed form.
#include <fstream>

#include <gtest/gtest.h>

#include "SharedData.h"
#include "step_ops/Metrics.h"
#include "testbenches/Testbench.h"
#include "traces/BundledTraces.h"
#include "traces/KvLengths.h"
#include "traces/SyntheticTraces.h"
#include "util/Error.h"

using namespace steprdu;

namespace {

std::string writeTrace(const std::string& name, const std::vector<long long>& lengths) {
    std::string path = ::testing::TempDir() + "steprdu_attention_" + name + ".csv";
    std::ofstream f(path);
    traces::writeKvLengths(traces::KvLengths{"test", lengths}, f);
    return path;
}

tb::Workload build(const std::vector<std::string>& knobs, bool functional) {
    const auto& t = tb::findTestbench("attention");
    return t.build(tb::Knobs(t.name(), t.knobs(), knobs), functional);
}

// Runs the graph on the functional interpreter; returns the workload's params.
nlohmann::json expectFunctional(const std::vector<std::string>& knobs) {
    auto w = build(knobs, true);
    EXPECT_TRUE(w.params.value("functional", false));
    step::Interpreter interp(true);
    auto r = interp.run(w.graph);
    // float32 host math against a double reference (outputs and both caches after the write-back).
    EXPECT_LE(w.check(interp.memory()), 1e-4);
    auto m = step::bindMetrics(w.graph, step::analyzeGraph(w.graph), w.bindings);
    EXPECT_EQ(r.offChipReadBytes + r.offChipWriteBytes, m.offChipBytes);
    EXPECT_EQ(w.figureFlops, m.flops); // the workload's FLOP formula is the graph's own count
    return w.params;
}

// The closed form of the off-chip traffic: K and V reads of every cache tile, the K and V write-back of each
// request's last tile, the query tile and the new K/V rows of each request, and the output tile store.
// Metadata come from on-chip sources and move no off-chip bytes.
std::int64_t closedFormOffChip(const std::vector<long long>& len, std::int64_t tn, std::int64_t hd,
                               std::int64_t Q, std::int64_t eb) {
    std::int64_t tiles = 0, B = static_cast<std::int64_t>(len.size());
    for (long long L : len)
        tiles += (L + 1 + tn - 1) / tn;
    std::int64_t cacheReads = 2 * tiles * tn * hd * eb;
    std::int64_t writeBacks = 2 * B * tn * hd * eb;
    std::int64_t requestLoads = B * Q * hd * eb + 2 * B * hd * eb;
    std::int64_t outputStore = B * Q * hd * eb;
    return cacheReads + writeBacks + requestLoads + outputStore;
}

} // namespace

TEST(TbAttentionFunctional, InterleavedMatchesDirectComputation) {
    auto kv = traces::syntheticKvLengths(6, 11, 120, 80, 0, 300);
    auto p =
        expectFunctional({"strategy=interleaved", "trace=" + writeTrace("syn6", kv.lengths), "max_n=320"});
    EXPECT_EQ(p["regions"], 4);
}

TEST(TbAttentionFunctional, InterleavedEdgeLengths) {
    // Empty cache, a full last tile after the append (L mod 32 = 31), an exact tile boundary, and fewer
    // requests in some regions than in others.
    std::string trace = writeTrace("edges", {0, 31, 32, 63, 100, 5, 1});
    expectFunctional({"strategy=interleaved", "trace=" + trace, "max_n=128", "regions=3"});
    expectFunctional({"strategy=interleaved", "trace=" + trace, "max_n=128", "regions=8", "elem_bytes=4"});
    expectFunctional({"strategy=interleaved", "trace=" + trace, "max_n=112", "tile_n=16", "regions=2",
                      "head_dim=32", "queries_per_kv=4"});
}

TEST(TbAttentionFunctional, InterleavedOnBundledTracePrefix) {
    auto p = expectFunctional({"strategy=interleaved", "batch=6"});
    EXPECT_EQ(p["batch"], 6);
    EXPECT_EQ(p["max_n"], 6464);
}

TEST(TbAttentionFunctional, CoarseMatchesDirectComputation) {
    // 40 requests: min(40/16, 4) = 2 regions; region 0 serves requests 0-15 and 32-39, region 1 16-31.
    auto kv = traces::syntheticKvLengths(40, 12, 70, 50, 0, 200);
    auto p = expectFunctional({"strategy=coarse", "trace=" + writeTrace("syn40", kv.lengths), "max_n=224"});
    EXPECT_EQ(p["regions"], 2);
}

TEST(TbAttentionFunctional, CoarseUsesOneRegionForSixteenRequests) {
    auto p = expectFunctional({"strategy=coarse", "trace=" + traces::bundledTrace("kv_b16_seed5.csv")});
    EXPECT_EQ(p["regions"], 1);
    auto small = expectFunctional({"strategy=coarse", "batch=6", "max_n=4096"});
    EXPECT_EQ(small["regions"], 1);
}

TEST(TbAttentionInput, NegativeOrMissingTraceIsBadInputNamingTheFile) {
    std::string bad = writeTrace("negative", {10, -3, 7});
    for (std::string path : {bad, ::testing::TempDir() + "steprdu_attention_no_such_trace.csv"}) {
        try {
            build({"strategy=interleaved", "trace=" + path}, false);
            ADD_FAILURE() << "expected BadInput for " << path;
        } catch (const BadInput& e) {
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
        }
    }
}

TEST(TbAttentionInput, MaxNMustHoldEveryRequestAndBeWholeTiles) {
    std::string trace = writeTrace("maxn", {10, 200, 7});
    EXPECT_THROW(build({"strategy=coarse", "trace=" + trace, "max_n=192"}, false), BadInput); // 200+1 rows
    EXPECT_THROW(build({"strategy=coarse", "trace=" + trace, "max_n=250"}, false), BadInput); // not 32k
    EXPECT_NO_THROW(build({"strategy=coarse", "trace=" + trace, "max_n=224"}, false));
}

TEST(TbAttentionFunctional, DynamicMatchesDirectComputation) {
    // Dispatch through the feedback loop (EagerMerge of the regions' "all K tiles read" signals).
    auto kv = traces::syntheticKvLengths(12, 13, 120, 100, 0, 300);
    auto p = expectFunctional({"strategy=dynamic", "trace=" + writeTrace("syn12", kv.lengths), "max_n=320"});
    EXPECT_EQ(p["regions"], 4);
    expectFunctional({"strategy=dynamic", "batch=9", "regions=2"});
}

TEST(TbAttentionInput, DynamicNeedsMoreRequestsThanRegions) {
    try {
        build({"batch=4"}, false); // dynamic is the default
        ADD_FAILURE() << "expected BadInput";
    } catch (const BadInput& e) {
        EXPECT_NE(std::string(e.what()).find("batch > regions"), std::string::npos) << e.what();
    }
}

TEST(TbAttentionAnalyze, RealTraceOffChipBytesMatchClosedForm) {
    const std::string rel = "traces/kv_lengths/b64/conv_stdev0996_4007_4070.csv";
    STEPRDU_NEED_SHARED(rel);
    const std::string path = test::sharedPath(rel);
    auto kv = traces::readKvLengths(path);
    ASSERT_EQ(kv.batch(), 64);
    for (std::string strategy : {"interleaved", "coarse", "dynamic"}) {
        auto w = build({"strategy=" + strategy, "trace=" + path}, false);
        EXPECT_FALSE(w.params.value("functional", true));
        EXPECT_EQ(w.params["regions"], 4) << strategy;
        auto m = step::bindMetrics(w.graph, step::analyzeGraph(w.graph), w.bindings);
        EXPECT_EQ(m.offChipBytes, closedFormOffChip(kv.lengths, 32, 64, 8, 2)) << strategy;
        EXPECT_EQ(w.figureFlops, m.flops) << strategy;
        // Six compute operators per region at 2048 FLOPs/cycle (qk, exp, pv, exp_sum, row_sum, div).
        EXPECT_EQ(m.allocatedFlopsPerCycle, 4 * 6 * 2048) << strategy;
        // Timed-run settings of the attention scripts: depth 1; 16 for the Broadcasts of each region's
        // metadata (idx, tile count, offset), 4 for the K/V write-back FIFOs.
        EXPECT_EQ(w.channelDepth, 1);
        EXPECT_EQ(w.timingElemBytes, 2);
        int deep = 0, writeBack = 0;
        for (auto& [name, depth] : w.depthByProducer) {
            if (depth == 16) {
                EXPECT_NE(name.find(".bcast"), std::string::npos) << name;
                ++deep;
            } else {
                EXPECT_EQ(depth, 4) << name;
                EXPECT_NE(name.find("_write_back"), std::string::npos) << name;
                ++writeBack;
            }
        }
        EXPECT_EQ(deep, 4 * 3) << strategy;
        EXPECT_EQ(writeBack, 4 * 2) << strategy;
    }
    // Fig 15's smaller batches are prefixes of the same trace; batch 16 runs coarse on one region.
    auto w16 = build({"strategy=coarse", "trace=" + path, "batch=16"}, false);
    EXPECT_EQ(w16.params["regions"], 1);
    auto m16 = step::bindMetrics(w16.graph, step::analyzeGraph(w16.graph), w16.bindings);
    EXPECT_EQ(
        m16.offChipBytes,
        closedFormOffChip(std::vector<long long>(kv.lengths.begin(), kv.lengths.begin() + 16), 32, 64, 8, 2));
}
