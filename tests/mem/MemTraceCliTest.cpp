// `steprdu memtrace`: its numbers are the unit benches' (same tier, same hand-derived bounds), and bad input
// exits with 2 naming the file and line or the key.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "CliRun.h"
#include "mem/MemTestUtil.h"
#include "traces/MemTrace.h"

using namespace steprdu;
using namespace steprdu::memtest;

namespace {

steprdu::test::CliResult cli(const std::string& args) {
    return steprdu::test::runCli(args);
}

std::string traceFile(const std::string& name, const std::string& text) {
    auto path = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()) + ".csv");
    std::ofstream(path) << text;
    return path.string();
}

} // namespace

// The command runs the same tier as the unit benches: identical cycles on the same generated trace, and
// the same bounds (DramTimingTest.cpp): idle latency 18 cycles, sequential >= 90% of peak, random reads on
// ddr4 at 64 B per nFAW / 4 = 6.5 cycles.
TEST(MemTraceCli, AgreesWithTheUnitBenches) {
    for (const char* pattern : {"sequential", "random", "mixed"}) {
        SCOPED_TRACE(pattern);
        traces::MemTraceGenerator g;
        g.pattern = pattern;
        g.bytes = 1 << 20;
        g.span = 256 << 20;
        g.seed = 5;
        auto bench = run(options(hw::mem::dramPreset("ddr4")), traces::generateMemTrace(g));
        auto r = cli(std::string("memtrace --generate ") + pattern +
                     " --mem ddr4 --bytes 1MiB --span 256MiB --seed 5 --json");
        ASSERT_EQ(r.code, 0) << r.err;
        auto j = nlohmann::json::parse(r.out);
        for (const char* key : {"dram_cycles", "bytes_read", "bytes_written", "row_hits", "row_misses",
                                "row_conflicts", "read_latency_p99_ns", "achieved_gb_per_s"})
            EXPECT_EQ(j[key], bench[key]) << key;
        if (pattern == std::string("sequential")) {
            EXPECT_GE(j["bandwidth_fraction"].get<double>(), 0.9);
        }
        if (pattern == std::string("random")) {
            EXPECT_NEAR(j["bytes_per_cycle"].get<double>(), 64 / 6.5, 0.1 * 64 / 6.5);
        }
        EXPECT_NEAR(j["peak_gb_per_s"].get<double>(), 16 / 0.833, 1e-6);
    }
    auto path = traceFile("one_read", "cycle,op,address,bytes\n0,R,0x0,64\n");
    auto r = cli("memtrace " + path + " --mem hbm2 --json");
    std::filesystem::remove(path);
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["dram_cycles"].get<int>(), 18);
    EXPECT_DOUBLE_EQ(j["read_latency_mean_ns"].get<double>(), 18.0);
    EXPECT_DOUBLE_EQ(j["read_latency_p99_ns"].get<double>(), 18.0);
}

TEST(MemTraceCli, TextOutputNamesTheMeasures) {
    auto r = cli("memtrace --generate sequential --mem sn40l --bytes 1MiB");
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char* word : {"hbm2e", "DRAM cycles", "GB/s", "read latency", "hits", "conflicts"})
        EXPECT_NE(r.out.find(word), std::string::npos) << word << "\n" << r.out;
}

TEST(MemTraceCli, MalformedLinesNameFileAndLine) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"0,R,0,64\n5,X,64,64\n", "line 3"},
        {"0,R,0,64\n5,R,65,64\n", "line 3"},
        {"0,R,-64,64\n", "line 2"},
        {"0,R,zero,64\n", "line 2"},
        {"0,R,0,64\n1,W,128,abc\n", "line 3"},
        {"abc,R,0,64\n", "line 2"},
    };
    for (const auto& [body, where] : cases) {
        auto path = traceFile("bad_trace", "cycle,op,address,bytes\n" + body);
        auto r = cli("memtrace " + path + " --mem hbm2");
        EXPECT_EQ(r.code, 2) << body;
        EXPECT_NE(r.err.find(path + ":" + where.substr(5)), std::string::npos) << body << "\n" << r.err;
        std::filesystem::remove(path);
    }
}

TEST(MemTraceCli, UnknownPresetOrKeyIsRefused) {
    auto r = cli("memtrace --generate random --mem hbm3");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("'hbm3'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("hbm2"), std::string::npos) << r.err;
    r = cli("memtrace --generate random --mem hbm2 --set row_polcy=closed");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("did you mean 'row_policy'"), std::string::npos) << r.err;
}

TEST(MemTraceCli, ATensorPlacedInAMissingTierIsRefused) {
    auto r = cli("run moe --backend cycle --hw tiny --set memory.ddr=none --set memory.place.weights=ddr");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("memory.place.weights"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("memory.ddr"), std::string::npos) << r.err;
}
