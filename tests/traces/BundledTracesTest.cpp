#include "traces/BundledTraces.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include <gtest/gtest.h>

#include "TraceTestUtil.h"
#include "traces/ExpertRouting.h"
#include "traces/KvLengths.h"
#include "util/Error.h"

using namespace steprdu;
using namespace steprdu::traces;

TEST(TraceBundled, DirIsAbsoluteAndHoldsEveryTrace) {
    const std::filesystem::path dir = bundledTraceDir();
    EXPECT_TRUE(dir.is_absolute()) << dir;
    ASSERT_EQ(bundledTraceNames().size(), 4u);
    for (const auto& name : bundledTraceNames())
        EXPECT_TRUE(std::filesystem::is_regular_file(dir / name)) << name;
}

// The shipped files are exactly what steprdu_gen_traces writes, so they are reproducible, not hand-made.
TEST(TraceBundled, RegeneratingEqualsShippedBytes) {
    for (const auto& name : bundledTraceNames()) {
        SCOPED_TRACE(name);
        std::ostringstream fresh;
        writeBundledTrace(name, fresh);
        EXPECT_EQ(fresh.str(), test::readBytes(bundledTraceDir() + "/" + name))
            << "regenerate with: steprdu_gen_traces " << bundledTraceDir() << " (docs/traces.md)";
    }
}

TEST(TraceBundled, ShippedTracesHaveTheDocumentedShapes) {
    const std::string dir = bundledTraceDir() + "/";
    auto mixtral = readExpertRouting(dir + "mixtral_b64_seed5.csv", 8);
    EXPECT_EQ(mixtral.batch(), 64);
    EXPECT_EQ(mixtral.topK, 2);
    auto qwen = readExpertRouting(dir + "qwen_b64_seed5.csv", 128);
    EXPECT_EQ(qwen.batch(), 64);
    EXPECT_EQ(qwen.topK, 8);
    for (auto [name, batch] : {std::pair{"kv_b16_seed5.csv", 16}, std::pair{"kv_b64_seed5.csv", 64}}) {
        auto kv = readKvLengths(dir + name);
        EXPECT_EQ(kv.batch(), batch) << name;
        for (auto len : kv.lengths)
            EXPECT_TRUE(len >= 64 && len <= 4096) << name << ": " << len;
    }
}

TEST(TraceBundled, UnknownNameSuggestsNearest) {
    std::ostringstream out;
    try {
        writeBundledTrace("mixtral_b64_seed6.csv", out);
        FAIL() << "no BadInput for an unknown bundled trace";
    } catch (const BadInput& e) {
        EXPECT_NE(std::string(e.what()).find("did you mean 'mixtral_b64_seed5.csv'"), std::string::npos)
            << e.what();
    }
}
