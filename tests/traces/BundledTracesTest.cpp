#include "traces/BundledTraces.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "TraceTestUtil.h"
#include "traces/EmbeddedTraces.h"
#include "traces/ExpertRouting.h"
#include "traces/KvLengths.h"
#include "util/Error.h"

using namespace steprdu;
using namespace steprdu::traces;

namespace {

// The shipped files, in the source tree (the binary itself does not need them).
const std::string kShippedDir = std::string(STEPRDU_SOURCE_DIR) + "/traces/synthetic";

} // namespace

// The binary embeds exactly the shipped files: the same names as bundledTraceNames() and traces/synthetic/,
// and the same bytes.
TEST(TraceBundled, EmbeddedTextEqualsTheShippedFiles) {
    ASSERT_EQ(bundledTraceNames().size(), 4u);
    const std::set<std::string> names(bundledTraceNames().begin(), bundledTraceNames().end());
    std::set<std::string> embedded, shipped;
    for (const auto& t : embeddedTraces())
        embedded.insert(t.name);
    for (const auto& e : std::filesystem::directory_iterator(kShippedDir))
        if (e.path().extension() == ".csv") shipped.insert(e.path().filename().string());
    EXPECT_EQ(embedded, names);
    EXPECT_EQ(shipped, names);
    for (const auto& name : bundledTraceNames()) {
        SCOPED_TRACE(name);
        EXPECT_EQ(std::string(bundledTraceText(name)), test::readBytes(kShippedDir + "/" + name))
            << "rebuild: the embedded copy is generated from traces/synthetic/ at build time";
    }
}

// The shipped files are exactly what steprdu_gen_traces writes, so they are reproducible, not hand-made.
TEST(TraceBundled, RegeneratingEqualsShippedBytes) {
    for (const auto& name : bundledTraceNames()) {
        SCOPED_TRACE(name);
        std::ostringstream fresh;
        writeBundledTrace(name, fresh);
        EXPECT_EQ(fresh.str(), test::readBytes(kShippedDir + "/" + name))
            << "regenerate with: steprdu_gen_traces traces/synthetic (docs/traces.md)";
    }
}

// "bundled:<name>" reads the embedded text through the same validating readers as the file.
TEST(TraceBundled, ShippedTracesHaveTheDocumentedShapes) {
    auto mixtral = readExpertRouting("bundled:mixtral_b64_seed5.csv", 8);
    EXPECT_EQ(mixtral.source, "bundled:mixtral_b64_seed5.csv");
    EXPECT_EQ(mixtral.batch(), 64);
    EXPECT_EQ(mixtral.topK, 2);
    EXPECT_EQ(mixtral.rows, readExpertRouting(kShippedDir + "/mixtral_b64_seed5.csv", 8).rows);
    auto qwen = readExpertRouting(bundledTrace("qwen_b64_seed5.csv"), 128);
    EXPECT_EQ(qwen.batch(), 64);
    EXPECT_EQ(qwen.topK, 8);
    for (auto [name, batch] : {std::pair{"kv_b16_seed5.csv", 16}, std::pair{"kv_b64_seed5.csv", 64}}) {
        auto kv = readKvLengths(bundledTrace(name));
        EXPECT_EQ(kv.batch(), batch) << name;
        EXPECT_EQ(kv.lengths, readKvLengths(kShippedDir + "/" + name).lengths) << name;
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
    // Through a reader, the message names the path as given and what it reads.
    try {
        readKvLengths("bundled:kv_b32_seed5.csv");
        FAIL() << "no BadInput for an unknown bundled trace";
    } catch (const BadInput& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind("bundled:kv_b32_seed5.csv: cannot open KV-length trace: unknown bundled trace; "
                             "expected one of mixtral_b64_seed5.csv, qwen_b64_seed5.csv, kv_b16_seed5.csv, "
                             "kv_b64_seed5.csv, found 'kv_b32_seed5.csv'",
                             0),
                  0u)
            << what;
        EXPECT_NE(what.find("did you mean 'kv_b"), std::string::npos) << what;
    }
}
