#include "traces/SyntheticTraces.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "TraceTestUtil.h"
#include "util/Error.h"

using namespace steprdu;
using namespace steprdu::traces;

TEST(TraceSynthetic, RoutingIsDeterministicPerSeed) {
    auto a = syntheticRouting(256, 128, 8, 11, 1.0);
    EXPECT_EQ(a.rows, syntheticRouting(256, 128, 8, 11, 1.0).rows);
    EXPECT_NE(a.rows, syntheticRouting(256, 128, 8, 12, 1.0).rows);
    EXPECT_NE(a.rows, syntheticRouting(256, 128, 8, 11, 0.5).rows);
}

TEST(TraceSynthetic, RoutingRowsHoldTopKDistinctValidExperts) {
    struct Case {
        int experts, topK;
        double skew;
    };
    // Includes topK == experts and a skew so steep that most weights are at their floor.
    for (auto c :
         {Case{8, 2, 0.0}, Case{8, 2, 0.5}, Case{128, 8, 1.0}, Case{4, 4, 3.0}, Case{128, 8, 12.0}}) {
        SCOPED_TRACE(testing::Message() << c.experts << " experts, top-" << c.topK << ", skew " << c.skew);
        auto r = syntheticRouting(300, c.experts, c.topK, 3, c.skew);
        ASSERT_EQ(r.batch(), 300);
        EXPECT_EQ(r.numExperts, c.experts);
        EXPECT_EQ(r.topK, c.topK);
        for (const auto& row : r.rows) {
            ASSERT_EQ(static_cast<int>(row.size()), c.topK);
            EXPECT_EQ(std::set<int>(row.begin(), row.end()).size(), row.size());
            for (int e : row)
                ASSERT_TRUE(e >= 0 && e < c.experts) << e;
        }
        auto counts = r.tokensPerExpert();
        EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), 0LL), 300LL * c.topK);
    }
}

TEST(TraceSynthetic, SkewConcentratesLoad) {
    auto uniform = syntheticRouting(8000, 8, 2, 1, 0.0).tokensPerExpert();
    for (auto c : uniform)
        EXPECT_NEAR(c, 2000, 150);
    auto skewed = syntheticRouting(8000, 128, 8, 1, 1.0).tokensPerExpert();
    auto flat = syntheticRouting(8000, 128, 8, 1, 0.0).tokensPerExpert();
    EXPECT_GT(*std::max_element(skewed.begin(), skewed.end()),
              2 * *std::max_element(flat.begin(), flat.end()));
}

TEST(TraceSynthetic, KvIsDeterministicPerSeed) {
    auto a = syntheticKvLengths(64, 7, 1500, 1000, 64, 4096);
    EXPECT_EQ(a.lengths, syntheticKvLengths(64, 7, 1500, 1000, 64, 4096).lengths);
    EXPECT_NE(a.lengths, syntheticKvLengths(64, 8, 1500, 1000, 64, 4096).lengths);
}

TEST(TraceSynthetic, KvStaysWithinClipBounds) {
    // Bounds within one stdev of the mean, so both are hit often.
    auto kv = syntheticKvLengths(2000, 5, 1500, 1000, 1000, 2000);
    auto [lo, hi] = std::minmax_element(kv.lengths.begin(), kv.lengths.end());
    EXPECT_EQ(*lo, 1000);
    EXPECT_EQ(*hi, 2000);
    auto tight = syntheticKvLengths(50, 5, 1500, 1000, 77, 77);
    for (auto len : tight.lengths)
        EXPECT_EQ(len, 77);
}

TEST(TraceSynthetic, KvIsRoughlyNormalWhenUnclipped) {
    auto kv = syntheticKvLengths(20000, 9, 1000, 100, 0, 100000);
    const double n = kv.lengths.size();
    const double mean = std::accumulate(kv.lengths.begin(), kv.lengths.end(), 0.0) / n;
    double var = 0;
    for (auto len : kv.lengths)
        var += (len - mean) * (len - mean);
    EXPECT_NEAR(mean, 1000, 3);
    EXPECT_NEAR(std::sqrt(var / n), 100, 3);
}

TEST(TraceSynthetic, RejectsBadArguments) {
    EXPECT_THROW(syntheticRouting(4, 8, 9, 1, 0), BadInput);
    EXPECT_THROW(syntheticRouting(4, 8, 0, 1, 0), BadInput);
    EXPECT_THROW(syntheticRouting(4, 0, 1, 1, 0), BadInput);
    EXPECT_THROW(syntheticRouting(-1, 8, 2, 1, 0), BadInput);
    EXPECT_THROW(syntheticRouting(4, 8, 2, 1, -0.5), BadInput);
    EXPECT_THROW(syntheticKvLengths(4, 1, 100, 10, 50, 40), BadInput);
    EXPECT_THROW(syntheticKvLengths(4, 1, 100, -1, 0, 40), BadInput);
    EXPECT_THROW(syntheticKvLengths(4, 1, 100, 10, -1, 40), BadInput);
}

class TraceSyntheticRoundTrip : public test::TraceTempDir {};

TEST_F(TraceSyntheticRoundTrip, WrittenTracesReadBack) {
    auto r = syntheticRouting(100, 128, 8, 2, 1.0);
    std::ostringstream rs;
    writeExpertRouting(r, rs);
    EXPECT_EQ(rs.str().rfind("token,topk0,topk1,topk2,topk3,topk4,topk5,topk6,topk7\n0,", 0), 0u);
    EXPECT_EQ(readExpertRouting(write("r.csv", rs.str()), 128).rows, r.rows);

    auto kv = syntheticKvLengths(100, 2, 1500, 1000, 64, 4096);
    std::ostringstream ks;
    writeKvLengths(kv, ks);
    EXPECT_EQ(ks.str().rfind("request,kv_len\n0,", 0), 0u);
    EXPECT_EQ(readKvLengths(write("kv.csv", ks.str())).lengths, kv.lengths);
}
