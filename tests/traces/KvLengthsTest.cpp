#include "traces/KvLengths.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <numeric>

#include <gtest/gtest.h>

#include "SharedData.h"
#include "TraceTestUtil.h"
#include "util/Error.h"

using namespace steprdu;
using namespace steprdu::traces;
using steprdu::test::sharedPath;

TEST(TraceKvReal, AllFilesMatchDerivedSummary) {
    STEPRDU_NEED_SHARED("traces/derived/kv_trace_summary.csv");
    STEPRDU_NEED_SHARED("traces/kv_lengths");
    auto table = test::readTable(sharedPath("traces/derived/kv_trace_summary.csv"));
    ASSERT_FALSE(table.empty());
    for (const char* col : {"trace", "batch", "min", "max", "mean"})
        ASSERT_TRUE(table[0].count(col)) << "kv_trace_summary.csv has no column " << col;
    // trace is spelled relative to traces/, e.g. "kv_lengths/b16/conv_stdev0174_1845_1860.csv".
    std::map<std::string, std::map<std::string, std::string>> summary;
    for (auto& row : table)
        summary[row["trace"]] = row;

    const std::filesystem::path root = sharedPath("traces");
    int files = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / "kv_lengths")) {
        if (!entry.is_regular_file() || entry.path().extension() != ".csv") continue;
        const std::string rel = entry.path().lexically_relative(root).generic_string();
        SCOPED_TRACE(rel);
        ++files;
        ASSERT_TRUE(summary.count(rel)) << "not in kv_trace_summary.csv";
        auto& s = summary[rel];
        auto kv = readKvLengths(entry.path().string());
        ASSERT_EQ(kv.batch(), std::stoi(s["batch"]));
        EXPECT_EQ(*std::min_element(kv.lengths.begin(), kv.lengths.end()), std::stoll(s["min"]));
        EXPECT_EQ(*std::max_element(kv.lengths.begin(), kv.lengths.end()), std::stoll(s["max"]));
        const double mean = std::accumulate(kv.lengths.begin(), kv.lengths.end(), 0.0) / kv.batch();
        // The summary rounds the mean to 2 decimals.
        EXPECT_NEAR(mean, std::stod(s["mean"]), 0.005 + 1e-9);
    }
    EXPECT_EQ(files, 51);
    EXPECT_EQ(files, static_cast<int>(summary.size()));
}

TEST(TraceKv, PrefixKeepsFirstRequests) {
    KvLengths kv{"hand", {5, 0, 7}};
    EXPECT_EQ(kv.prefix(2).lengths, (std::vector<long long>{5, 0}));
    EXPECT_EQ(kv.prefix(3).lengths, kv.lengths);
    EXPECT_THROW(kv.prefix(4), BadInput);
    EXPECT_THROW(kv.prefix(-1), BadInput);
}

class TraceKvInput : public test::TraceTempDir {
  protected:
    std::string errorFor(const std::string& content) {
        path_ = write("kv.csv", content);
        try {
            readKvLengths(path_);
        } catch (const BadInput& e) {
            return e.what();
        }
        ADD_FAILURE() << "no BadInput for:\n" << content;
        return "";
    }
    void expectAt(const std::string& msg, int line, const std::string& detail) {
        EXPECT_EQ(msg.rfind(path_ + ":" + std::to_string(line) + ": ", 0), 0u) << msg;
        EXPECT_NE(msg.find(detail), std::string::npos) << msg;
        EXPECT_NE(msg.find("; expected "), std::string::npos) << msg;
        EXPECT_NE(msg.find(", found "), std::string::npos) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
    std::string path_;
};

TEST_F(TraceKvInput, AcceptsWellFormedFile) {
    auto kv = readKvLengths(write("ok.csv", "request,kv_len\r\n0,1097\r\n1,0\r\n"));
    EXPECT_EQ(kv.lengths, (std::vector<long long>{1097, 0}));
}

TEST_F(TraceKvInput, NegativeLength) {
    auto msg = errorFor("request,kv_len\n0,10\n1,-5\n");
    expectAt(msg, 3, "negative KV length");
    EXPECT_NE(msg.find("found -5"), std::string::npos) << msg;
}

TEST_F(TraceKvInput, NonIntegerLength) {
    auto msg = errorFor("request,kv_len\n0,12k\n");
    expectAt(msg, 2, "non-integer field 'kv_len'");
    EXPECT_NE(msg.find("found '12k'"), std::string::npos) << msg;
}

TEST_F(TraceKvInput, WrongColumnCount) {
    expectAt(errorFor("request,kv_len\n0,1,2\n"), 2, "wrong column count");
}

TEST_F(TraceKvInput, RequestIndexMustEqualRowNumber) {
    expectAt(errorFor("request,kv_len\n1,10\n"), 2, "request index out of sequence");
}

TEST_F(TraceKvInput, BadHeaderAndEmpty) {
    expectAt(errorFor("request,kv\n0,1\n"), 1, "bad header");
    expectAt(errorFor(""), 1, "missing header");
    expectAt(errorFor("request,kv_len\n"), 2, "no request rows");
}

TEST_F(TraceKvInput, MissingFile) {
    const std::string missing = path("nope.csv");
    try {
        readKvLengths(missing);
        FAIL() << "no BadInput for a missing file";
    } catch (const BadInput& e) {
        EXPECT_EQ(std::string(e.what()), missing + ": cannot open KV-length trace: " + std::strerror(ENOENT));
    }
}
