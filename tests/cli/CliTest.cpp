// The steprdu command line: exit codes and one-line messages for bad input (docs/cli.md).
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "CliRun.h"
#include "step_ops/GraphBuilder.h"
#include "util/Error.h"

namespace {

using Result = steprdu::test::CliResult;

Result run(const std::string& args) {
    return steprdu::test::runCli(args);
}

std::string oneLine(const std::string& s) {
    EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 1) << s;
    return s;
}

} // namespace

TEST(CliErrors, UnknownConfigKeyNamesKeyAndSuggestion) {
    auto r = run("run swiglu --set hbm.chanels=16");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(oneLine(r.err).find("hbm.chanels"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("did you mean 'hbm.channels'"), std::string::npos) << r.err;
}

TEST(CliErrors, UnknownKnobAndBadKnobValue) {
    auto r = run("analyze moe tile=16");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(oneLine(r.err).find("unknown knob 'tile'"), std::string::npos) << r.err;
    r = run("analyze moe tile_n=abc");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(oneLine(r.err).find("knob 'tile_n': expected an integer"), std::string::npos) << r.err;
    r = run("analyze mooe");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("did you mean 'moe'"), std::string::npos) << r.err;
}

TEST(CliErrors, MissingTraceFileNamesTheFile) {
    auto r = run("analyze moe trace=/nonexistent/routing.csv");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(oneLine(r.err).find("/nonexistent/routing.csv"), std::string::npos) << r.err;
}

TEST(CliOutput, AnalyzeJsonHasTheContractKeys) {
    auto r = run("analyze moe tile_n=16 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    for (auto k : {"off_chip_bytes", "on_chip_bytes", "on_chip_bytes_active", "on_chip_bytes_paper", "flops",
                   "padded_flops", "allocated_flops_per_cycle", "expressions"})
        EXPECT_TRUE(j.contains(k)) << k;
    EXPECT_TRUE(j["expressions"]["off_chip_bytes"].is_string());
}

TEST(CliOutput, RunJsonHasTheContractKeys) {
    auto r = run("run swiglu tile_b=16 --backend interp --json");
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    for (auto k : {"testbench", "backend", "hw", "params", "cycles", "off_chip_bytes", "on_chip_bytes",
                   "flops", "wall_seconds"})
        EXPECT_TRUE(j.contains(k)) << k;
    EXPECT_TRUE(j["cycles"].is_null());
    EXPECT_LE(j["rel_error"].get<double>(), 1e-4);
}

TEST(CliOutput, RooflineRunReportsCyclesAndSpeed) {
    auto r = run("run swiglu --json");
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["backend"], "roofline");
    EXPECT_GT(j["cycles"].get<long long>(), 0);
    EXPECT_GT(j["sim_cycles_per_second"].get<double>(), 0);
    EXPECT_EQ(j["simulated_off_chip_bytes"], j["off_chip_bytes"]);
}

TEST(CliErrors, CycleLimitStopsWithExitCode4) {
    auto r = run("run swiglu --max-cycles 100");
    EXPECT_EQ(r.code, 4) << r.err;
    EXPECT_NE(r.err.find("--max-cycles 100"), std::string::npos) << r.err;
}

TEST(CliErrors, BadRoutingTracesNameFileAndLine) {
    auto dir = std::filesystem::temp_directory_path() / ("steprdu_cli_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    auto write = [&](const std::string& name, const std::string& text) {
        std::ofstream((dir / name).string()) << text;
        return (dir / name).string();
    };
    auto cols = write("cols.csv", "token,topk0,topk1\n0,1,2\n1,3\n");
    auto r = run("analyze moe trace=" + cols);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(oneLine(r.err).find(cols + ":3:"), std::string::npos) << r.err;
    auto range = write("range.csv", "token,topk0,topk1\n0,1,8\n");
    r = run("analyze moe trace=" + range);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(oneLine(r.err).find(range + ":2:"), std::string::npos) << r.err;
    std::filesystem::remove_all(dir);
}

// Graph errors, asserted on the exception the CLI turns into exit code 2.
using namespace steprdu;
using namespace steprdu::step;

TEST(CliGraphErrors, ShapeMismatchNamesOperatorAndShapes) {
    GraphBuilder b;
    Stream a = b.source("tile", Shape({Dim(4)}), nlohmann::json::array({1, 2, 3, 4}),
                        {{"tile_rows", 1}, {"tile_cols", 1}}, "a");
    Stream c = b.source("tile", Shape({Dim(3)}), nlohmann::json::array({1, 2, 3}),
                        {{"tile_rows", 1}, {"tile_cols", 1}}, "c");
    try {
        b.map({a, c}, Function(Function::Kind::Add), {}, "add");
        FAIL() << "expected BadInput";
    } catch (const BadInput& e) {
        EXPECT_EQ(std::string(e.what()),
                  "Map 'add': input 1 shape [3] vs input 0 shape [4]: expected 4, found 3 at dim 0");
    }
}

TEST(CliGraphErrors, DanglingStreamIsReported) {
    GraphBuilder b;
    b.source("tile", Shape({Dim(1)}), nlohmann::json::array({1}), {{"tile_rows", 1}, {"tile_cols", 1}},
             "lonely");
    try {
        b.finish();
        FAIL() << "expected BadInput";
    } catch (const BadInput& e) {
        EXPECT_NE(std::string(e.what()).find("Source 'lonely': output 0"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("has no consumer (dangling stream)"), std::string::npos)
            << e.what();
    }
}

TEST(CliGraphErrors, UnknownOperatorArgumentSuggestsTheRightOne) {
    GraphBuilder b;
    Stream a = b.source("tile", Shape({Dim(1), Dim(2)}), nlohmann::json::array({1, 2, "S1"}),
                        {{"tile_rows", 1}, {"tile_cols", 1}}, "a");
    try {
        b.add("Flatten", {{"min_rank", 0}, {"max_rnak", 1}}, {a}, "flat");
        FAIL() << "expected BadInput";
    } catch (const BadInput& e) {
        EXPECT_EQ(std::string(e.what()),
                  "Flatten 'flat': unknown argument 'max_rnak'; expected one of min_rank, max_rank; "
                  "did you mean 'max_rank'?");
    }
}

TEST(CliGraphErrors, GraphJsonRoundTrips) {
    GraphBuilder b;
    Stream a = b.source("tile", Shape({Dim(1), Dim(2)}), nlohmann::json::array({1, 2, "S1"}),
                        {{"tile_rows", 1}, {"tile_cols", 1}}, "a");
    b.sink(b.flatten(a, 0, 1, "flat"), "out");
    Graph g = b.finish();
    Graph h = Graph::fromJson(g.toJson());
    EXPECT_EQ(h.toJson().dump(), g.toJson().dump());
    nlohmann::json bad = g.toJson();
    bad["operators"][1]["kind"] = "Flaten";
    try {
        Graph::fromJson(bad);
        FAIL() << "expected BadInput";
    } catch (const BadInput& e) {
        EXPECT_NE(std::string(e.what()).find("did you mean 'Flatten'?"), std::string::npos) << e.what();
    }
}

TEST(CliOutput, ExperimentJsonIsOneObject) {
    // Fig 8 needs no trace; its 15 runs are written to --out and printed as one object.
    auto out = (std::filesystem::temp_directory_path() / "steprdu_cli_fig8").string();
    auto r = run("experiment fig8 --json --out " + out);
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(j["experiment"], "fig8");
    EXPECT_EQ(j["rows"].size(), 15u);
    EXPECT_TRUE(std::filesystem::exists(out + "/fig8.csv"));
}

// The cycle backend's bad input: a unit that does not exist or a parameter it does not have, a graph that
// does not fit the grid, an allocation larger than a PMU. Each exits with 2 and one line naming it.
TEST(CliCycleErrors, UnknownUnitKindOrParameterNamesTheUnitOrKey) {
    auto r = run("run swiglu --backend cycle --set chip.xpu_r3c7.simd_lanes=8");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(oneLine(r.err).find("chip.xpu_r3c7: unknown unit kind 'xpu'; expected pcu_r<row>c<col>"),
              std::string::npos)
        << r.err;
    r = run("run swiglu --backend cycle --set chip.pcu_r0c0.simd_lane=8");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(
        oneLine(r.err).find("chip.pcu_r0c0.simd_lane: unknown pcu parameter; did you mean 'simd_lanes'?"),
        std::string::npos)
        << r.err;
    r = run("run swiglu --backend cycle --set chip.pcu_r0c1.rows=8");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(
        oneLine(r.err).find("chip.pcu_r0c1: no such unit; expected pcu, found a pmu at row 0, column 1"),
        std::string::npos)
        << r.err;
    auto dir = std::filesystem::temp_directory_path() / ("steprdu_cli_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "bad.yaml") << "base: tiny\nchip:\n  gpu_r1c1:\n    rows: 4\n";
    r = run("run swiglu --backend cycle --hw " + (dir / "bad.yaml").string());
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(oneLine(r.err).find("bad.yaml: chip.gpu_r1c1: unknown unit kind 'gpu'"), std::string::npos)
        << r.err;
    std::filesystem::remove_all(dir);
}

TEST(CliCycleErrors, APlacementThatDoesNotFitNamesTheDemandAndTheLargestConsumers) {
    auto r = run("run swiglu --backend cycle --hw tiny");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(
        oneLine(r.err).find("placement: the graph needs 40 PCUs, the 4 x 4 grid of 'tiny' has 8 (largest: "
                            "MapAccum 'gate' 8"),
        std::string::npos)
        << r.err;
}

TEST(CliCycleErrors, APmuOverflowNamesTheBufferDemandAndCapacity) {
    auto r = run("run moe hidden=512 inter=1024 --backend cycle --set pmu.capacity_bytes=8192");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(oneLine(r.err).find("PMU overflow: the element RepeatStatic"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("needs 16384 B (one element), capacity 8192 B (1 PMU of 8192 B)"), std::string::npos)
        << r.err;
}

TEST(CliCycleErrors, UnitOverridesApplyToThatUnitOnly) {
    // The first compute group's host PCU with half the lanes takes longer; the same key elsewhere does not.
    auto base = nlohmann::json::parse(run("run gemm --backend cycle --hw tiny compute_bw=512 --json").out);
    auto slow = nlohmann::json::parse(
        run("run gemm --backend cycle --hw tiny compute_bw=512 --set chip.pcu_r0c0.rows=8 --json").out);
    auto elsewhere = nlohmann::json::parse(
        run("run gemm --backend cycle --hw tiny compute_bw=512 --set chip.pcu_r3c3.rows=8 --json").out);
    EXPECT_GT(slow["cycles"].get<std::int64_t>(), base["cycles"].get<std::int64_t>());
    EXPECT_EQ(elsewhere["cycles"], base["cycles"]);
}

// A small time-multiplexed MoE deadlocks with two-element streams (on the roofline too): the cycle backend
// stops with exit code 3 and names the blocked operators, their units and the full streams.
TEST(CliCycleErrors, ADeadlockEndsWithExitCode3NamingOperatorsUnitsAndStreams) {
    auto r = run("run moe hidden=64 inter=128 tile_f=32 tile_n=8 regions=2 elem_bytes=4 --backend cycle");
    EXPECT_EQ(r.code, 3);
    EXPECT_NE(r.err.find("cycle backend: no forward progress at cycle"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Source 'select_slots' on chip.agcu"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("waits for a credit of select_slots[0] -> route_w[1]"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("stream select_slots[0] -> route_w[1]: 2 data element(s) held of capacity 2"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(run("run moe hidden=64 inter=128 tile_f=32 tile_n=8 regions=2 elem_bytes=4").code, 3);
}
