// steprdu difftest as users and CI call it: the JSON report's keys, the exit status, bad options.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "CliRun.h"

using steprdu::test::runCli;

namespace {

const char* kOneTile = "--set chip.dies=1 --set chip.die_tile_rows=1 --set chip.die_tile_cols=1";

TEST(CliDiffTest, JsonReportsProgramsPassedFailedAndFailingSeeds) {
    auto r = runCli(std::string("difftest --count 12 --seed 100 --json ") + kOneTile);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["programs"], 12);
    EXPECT_EQ(j["passed"], 12);
    EXPECT_EQ(j["failed"], 0);
    EXPECT_TRUE(j["failing_seeds"].is_array());
    EXPECT_TRUE(j["failing_seeds"].empty());
    EXPECT_GT(j["operators"].get<int>(), 12);
}

TEST(CliDiffTest, BackendsCanBeChosen) {
    auto r = runCli("difftest --count 50 --seed 3 --backends interp,roofline");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("50 programs"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("50 passed, 0 failed"), std::string::npos) << r.out;
}

TEST(CliDiffTest, BadOptionsExitWithTwo) {
    auto r = runCli("difftest --backends interp,verilator");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("'verilator'"), std::string::npos) << r.err;
    r = runCli("difftest --count 0");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("--count"), std::string::npos) << r.err;
    r = runCli("difftest --count 1 --set chip.dies=zero");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("chip.dies"), std::string::npos) << r.err;
}

} // namespace
