#include "traces/ExpertRouting.h"

#include <cerrno>
#include <cstring>
#include <map>

#include <gtest/gtest.h>

#include "SharedData.h"
#include "TraceTestUtil.h"
#include "util/Error.h"

using namespace steprdu;
using namespace steprdu::traces;
using steprdu::test::sharedPath;

namespace {

const char* kMixtralB64 = "traces/expert_routing/mixtral_b64/008_010.csv";

int expertsOfModel(const std::string& model) {
    return model == "mixtral" ? 8 : model == "qwen" ? 128 : 0;
}

int zeroCount(const std::vector<long long>& counts) {
    int n = 0;
    for (auto c : counts)
        n += c == 0;
    return n;
}

} // namespace

TEST(TraceRoutingReal, MixtralB64CountsMatchPaper) {
    STEPRDU_NEED_SHARED(kMixtralB64);
    auto r = readExpertRouting(sharedPath(kMixtralB64), 8);
    EXPECT_EQ(r.batch(), 64);
    EXPECT_EQ(r.topK, 2);
    EXPECT_EQ(r.rows[0], (std::vector<int>{6, 2}));
    EXPECT_EQ(r.tokensPerExpert(), (std::vector<long long>{13, 10, 17, 14, 17, 10, 24, 23}));
}

TEST(TraceRoutingReal, CountsMatchDerivedExpertCounts) {
    STEPRDU_NEED_SHARED("traces/derived/expert_counts.csv");
    auto table = test::readTable(sharedPath("traces/derived/expert_counts.csv"));
    ASSERT_FALSE(table.empty());
    for (const char* col : {"trace", "model", "batch", "topk", "expert", "tokens_routed"})
        ASSERT_TRUE(table[0].count(col)) << "expert_counts.csv has no column " << col;

    // trace is spelled relative to traces/, e.g. "expert_routing/mixtral_b64/008_010.csv".
    std::map<std::string, std::vector<std::map<std::string, std::string>>> byTrace;
    for (auto& row : table)
        byTrace[row["trace"]].push_back(row);
    ASSERT_EQ(byTrace.size(), 4u);
    for (auto& [trace, rows] : byTrace) {
        SCOPED_TRACE(trace);
        const int experts = expertsOfModel(rows[0]["model"]);
        ASSERT_GT(experts, 0) << "unknown model " << rows[0]["model"];
        ASSERT_EQ(static_cast<int>(rows.size()), experts);
        auto r = readExpertRouting(sharedPath("traces/" + trace), experts);
        EXPECT_EQ(r.batch(), std::stoi(rows[0]["batch"]));
        EXPECT_EQ(r.topK, std::stoi(rows[0]["topk"]));
        auto counts = r.tokensPerExpert();
        for (auto& row : rows) {
            const int e = std::stoi(row["expert"]);
            ASSERT_TRUE(e >= 0 && e < experts);
            EXPECT_EQ(counts[e], std::stoll(row["tokens_routed"])) << "expert " << e;
        }
    }
}

TEST(TraceRoutingReal, QwenUnusedExperts) {
    const char* b64 = "traces/expert_routing/qwen_b64/032_012.csv";
    const char* b1024 = "traces/expert_routing/qwen_b1024/022_016.csv";
    STEPRDU_NEED_SHARED(b64);
    STEPRDU_NEED_SHARED(b1024);
    EXPECT_EQ(zeroCount(readExpertRouting(sharedPath(b64), 128).tokensPerExpert()), 68);
    EXPECT_EQ(zeroCount(readExpertRouting(sharedPath(b1024), 128).tokensPerExpert()), 45);
}

TEST(TraceRouting, PrefixKeepsFirstTokens) {
    ExpertRouting r{"hand", 4, 2, {{0, 1}, {2, 3}, {1, 2}}};
    auto p = r.prefix(2);
    EXPECT_EQ(p.batch(), 2);
    EXPECT_EQ(p.rows[1], (std::vector<int>{2, 3}));
    EXPECT_EQ(p.tokensPerExpert(), (std::vector<long long>{1, 1, 1, 1}));
    EXPECT_EQ(r.prefix(0).batch(), 0);
    EXPECT_THROW(r.prefix(4), BadInput);
    EXPECT_THROW(r.prefix(-1), BadInput);
}

TEST(TraceRouting, CountsRejectHandBuiltOutOfRangeIds) {
    ExpertRouting r{"hand", 4, 1, {{0}, {4}}};
    EXPECT_THROW(r.tokensPerExpert(), BadInput);
}

class TraceRoutingInput : public test::TraceTempDir {
  protected:
    // The BadInput message for reading `content` with `experts` experts; fails the test if none is thrown.
    std::string errorFor(const std::string& content, int experts = 8) {
        path_ = write("routing.csv", content);
        try {
            readExpertRouting(path_, experts);
        } catch (const BadInput& e) {
            return e.what();
        }
        ADD_FAILURE() << "no BadInput for:\n" << content;
        return "";
    }
    // Message names the file and line, is one line, and says what was expected and found.
    void expectAt(const std::string& msg, int line, const std::string& detail) {
        EXPECT_EQ(msg.rfind(path_ + ":" + std::to_string(line) + ": ", 0), 0u) << msg;
        EXPECT_NE(msg.find(detail), std::string::npos) << msg;
        EXPECT_NE(msg.find("; expected "), std::string::npos) << msg;
        EXPECT_NE(msg.find(", found "), std::string::npos) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
    std::string path_;
};

TEST_F(TraceRoutingInput, AcceptsWindowsLineEndsAndTrailingBlankLines) {
    auto r = readExpertRouting(write("ok.csv", "token,topk0,topk1\r\n0,6,2\r\n1,7,4\r\n\r\n\n"), 8);
    EXPECT_EQ(r.batch(), 2);
    EXPECT_EQ(r.rows[1], (std::vector<int>{7, 4}));
    EXPECT_EQ(r.source, path("ok.csv"));
}

TEST_F(TraceRoutingInput, WrongColumnCount) {
    auto msg = errorFor("token,topk0,topk1\n0,1,2\n1,3\n");
    expectAt(msg, 3, "wrong column count");
    EXPECT_NE(msg.find("expected 3 fields"), std::string::npos) << msg;
    EXPECT_NE(msg.find("found 2"), std::string::npos) << msg;
}

TEST_F(TraceRoutingInput, ExpertIdOutOfRange) {
    auto msg = errorFor("token,topk0,topk1\n0,1,2\n1,3,8\n");
    expectAt(msg, 3, "expert id out of range in 'topk1'");
    EXPECT_NE(msg.find("expected 0..7"), std::string::npos) << msg;
    EXPECT_NE(msg.find("found 8"), std::string::npos) << msg;
    expectAt(errorFor("token,topk0,topk1\n0,-1,2\n"), 2, "expert id out of range");
}

TEST_F(TraceRoutingInput, NonIntegerField) {
    auto msg = errorFor("token,topk0,topk1\n0,1,x2\n");
    expectAt(msg, 2, "non-integer field 'topk1'");
    EXPECT_NE(msg.find("found 'x2'"), std::string::npos) << msg;
    expectAt(errorFor("token,topk0,topk1\n0,1,2.0\n"), 2, "non-integer");
    expectAt(errorFor("token,topk0,topk1\n0,1,\n"), 2, "non-integer");
}

TEST_F(TraceRoutingInput, TokenIndexMustEqualRowNumber) {
    auto msg = errorFor("token,topk0,topk1\n0,1,2\n2,3,4\n");
    expectAt(msg, 3, "token index out of sequence");
    EXPECT_NE(msg.find("expected 1, found 2"), std::string::npos) << msg;
}

TEST_F(TraceRoutingInput, DuplicateExpertWithinRow) {
    expectAt(errorFor("token,topk0,topk1\n0,5,5\n"), 2, "duplicate expert");
}

TEST_F(TraceRoutingInput, BadHeader) {
    expectAt(errorFor("token,top0,top1\n0,1,2\n"), 1, "bad header");
    expectAt(errorFor("token\n0\n"), 1, "bad header");
    expectAt(errorFor("0,1,2\n1,3,4\n"), 1, "bad header");
    // Nine experts per token cannot be distinct among eight experts.
    expectAt(errorFor("token,topk0,topk1,topk2\n0,1,2,3\n", 2), 1, "more experts per token than experts");
}

TEST_F(TraceRoutingInput, EmptyFileAndNoRows) {
    expectAt(errorFor(""), 1, "missing header");
    expectAt(errorFor("token,topk0,topk1\n"), 2, "no token rows");
}

TEST_F(TraceRoutingInput, BlankLineInsideTrace) {
    expectAt(errorFor("token,topk0,topk1\n0,1,2\n\n1,3,4\n"), 3, "blank line");
}

TEST_F(TraceRoutingInput, MissingFile) {
    const std::string missing = path("does_not_exist.csv");
    try {
        readExpertRouting(missing, 8);
        FAIL() << "no BadInput for a missing file";
    } catch (const BadInput& e) {
        EXPECT_EQ(std::string(e.what()), missing + ": cannot open routing trace: " + std::strerror(ENOENT));
        EXPECT_EQ(e.code(), ExitCode::BadInput);
    }
}
