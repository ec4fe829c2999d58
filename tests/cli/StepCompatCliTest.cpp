// The step_compat warning on the command line (issue 41): `run`, `compare` and `sweep` with a key the
// published simulator's quirks distort say so on stderr, once, naming the key and
// `--set roofline.step_compat=false`, and record it in result.json's warnings; other keys, the switch off
// and the interpreter stay quiet.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "CliRun.h"

using steprdu::test::runCli;
namespace fs = std::filesystem;

namespace {

const std::string kWayOut = "--set roofline.step_compat=false";

class StepCompatCli : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("steprdu_compat_" + std::to_string(::getpid()) + "_" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    nlohmann::json readJson(const fs::path& p) {
        std::ifstream f(p);
        return nlohmann::json::parse(f);
    }
    fs::path dir_;
};

std::size_t count(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
        ++n;
    return n;
}

} // namespace

TEST_F(StepCompatCli, RunWarnsOnStderrAndInResultJson) {
    const auto out = dir_ / "run";
    auto r = runCli("run swiglu tile_b=16 --set hbm.channels=30 --out " + out.string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(count(r.err, "steprdu: warning: roofline.step_compat is on:"), 1u) << r.err;
    EXPECT_NE(r.err.find("hbm.channels"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(kWayOut), std::string::npos) << r.err;
    const auto j = readJson(out / "result.json");
    ASSERT_TRUE(j["warnings"].is_array()) << j.dump();
    ASSERT_EQ(j["warnings"].size(), 1u) << j["warnings"];
    EXPECT_NE(j["warnings"][0].get<std::string>().find(kWayOut), std::string::npos);
    // --quiet keeps steprdu's stderr clean (a sanitizer's own notes may remain); the record stays.
    r = runCli("run swiglu tile_b=16 --set hbm.channels=30 --quiet --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err.find("steprdu"), std::string::npos) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["warnings"].size(), 1u);
}

TEST_F(StepCompatCli, RunStaysQuietForOtherKeysTheSwitchOffAndTheInterpreter) {
    for (const std::string& args : std::vector<std::string>{
             "--set pmu.bandwidth_bytes_per_cycle=128", "--set hbm.channels=30 " + kWayOut,
             "--set hbm.channels=30 --backend interp", "--hw sn40l --set hbm.channels=30"}) {
        auto r = runCli("run swiglu tile_b=16 --json " + args);
        ASSERT_EQ(r.code, 0) << args << "\n" << r.err;
        EXPECT_EQ(r.err.find("step_compat"), std::string::npos) << args << "\n" << r.err;
        const auto j = nlohmann::json::parse(r.out);
        EXPECT_TRUE(!j.contains("warnings") || j["warnings"].empty()) << args << "\n" << j["warnings"];
    }
}

TEST_F(StepCompatCli, SweepWarnsOnceAndEveryRooflinePointRecordsIt) {
    const auto spec = dir_ / "channels.yaml";
    std::ofstream(spec) << R"(description: "SwiGLU over HBM channel counts"
testbench: swiglu
backend: roofline
runs:
  - label: channels
    knobs: {tile_b: 16, tile_inter: 64}
    sweep: {hw.hbm.channels: [30, 32]}
)";
    const auto out = dir_ / "sweep";
    auto r = runCli("sweep " + spec.string() + " -j 1 --out " + out.string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(count(r.err, "steprdu: warning: roofline.step_compat is on:"), 1u) << r.err;
    EXPECT_NE(r.err.find("hbm.channels"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(kWayOut), std::string::npos) << r.err;
    int points = 0;
    for (const auto& e : fs::directory_iterator(out / "points")) {
        const auto j = readJson(e.path() / "result.json");
        EXPECT_EQ(j["warnings"].size(), 1u) << e.path();
        ++points;
    }
    EXPECT_EQ(points, 2);
    // The same sweep on the interpreter, or with the switch off, says nothing.
    for (const std::string& args : std::vector<std::string>{"--backend interp", kWayOut}) {
        r = runCli("sweep " + spec.string() + " -j 1 --out " + (dir_ / "quiet").string() + " " + args);
        ASSERT_EQ(r.code, 0) << args << "\n" << r.err;
        EXPECT_EQ(r.err.find("step_compat"), std::string::npos) << args << "\n" << r.err;
        fs::remove_all(dir_ / "quiet");
    }
}

// compare runs both backends; their warnings about the same keys come once.
TEST_F(StepCompatCli, CompareWarnsOnceForBothBackends) {
    auto r = runCli("compare swiglu tile_b=16 --json --set hbm.channels=30 --set roofline.channel_depth=2");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(count(r.err, "roofline.step_compat is on"), 1u) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const auto& w = j["warnings"];
    const auto compat = std::count_if(w.begin(), w.end(), [](const nlohmann::json& x) {
        return x.get<std::string>().find("step_compat") != std::string::npos;
    });
    EXPECT_EQ(compat, 1) << w;
    EXPECT_NE(r.err.find("hbm.channels and roofline.channel_depth measure"), std::string::npos) << r.err;
}
