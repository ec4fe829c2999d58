// The steprdu command line: exit codes and one-line messages for bad input (docs/cli.md).
#include <algorithm>
#include <cstdint>
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

// An unknown backend, preset or command exits 2 naming the option, the valid names and the nearest one.
TEST(CliErrors, UnknownBackendNamesTheBackendsAndTheNearest) {
    auto r = run("run swiglu --backend cycel");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(
        oneLine(r.err).find("--backend: expected roofline, interp or cycle, found 'cycel'; did you mean "
                            "'cycle'?"),
        std::string::npos)
        << r.err;
    r = run("sweep fig8 --backend interpp --out /nonexistent/sweep");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(oneLine(r.err).find("did you mean 'interp'?"), std::string::npos) << r.err;
}

TEST(CliErrors, UnknownPresetThatIsNoFileNamesThePresetsAndTheNearest) {
    for (const std::string cmd :
         {"run swiglu", "pnr swiglu", "compare swiglu", "unit pcu matmul", "meshtraffic",
          "difftest --count 1", "sweep fig8 --out /nonexistent/sweep"}) {
        auto r = run(cmd + " --hw sn40");
        EXPECT_EQ(r.code, 2) << cmd;
        EXPECT_NE(
            oneLine(r.err).find("--hw: expected a preset (sn40l, step_eval, step_validation, tiny) or a "
                                "YAML file, found 'sn40'; did you mean 'sn40l'?"),
            std::string::npos)
            << cmd << ": " << r.err;
    }
    // Far from every preset: no suggestion, and a path that does not exist is named as found.
    auto r = run("run swiglu --hw /nonexistent/chip.yaml");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(oneLine(r.err).find("found '/nonexistent/chip.yaml'"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;
}

TEST(CliErrors, UnknownCommandNamesTheCommandsAndTheNearest) {
    auto r = run("rn swiglu");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(oneLine(r.err).find("unknown command 'rn'; expected list, run, run-graph, analyze"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("collect, plot or program, found 'rn'; did you mean 'run'?"), std::string::npos)
        << r.err;
    r = run("colect dir");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(oneLine(r.err).find("did you mean 'collect'?"), std::string::npos) << r.err;
}

// The usage text lists every command; each command's --help starts with its own lines of it.
TEST(CliOutput, HelpListsEveryCommandAndEachCommandHasItsOwn) {
    auto r = run("--help");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("usage:\n  steprdu list ", 0), 0u) << r.out;
    EXPECT_EQ(run("").code, 2);
    for (const std::string cmd :
         {"list", "run", "run-graph", "analyze", "experiment", "bench", "unit", "meshtraffic", "memtrace",
          "pnr", "compare", "difftest", "sweep", "collect"}) {
        EXPECT_NE(r.out.find("\n  steprdu " + cmd + " "), std::string::npos) << cmd;
        auto h = run(cmd + " --help");
        EXPECT_EQ(h.code, 0) << cmd << ": " << h.err;
        EXPECT_EQ(h.out.rfind("usage:\n  steprdu " + cmd + " ", 0), 0u) << h.out;
        EXPECT_NE(h.out.find(" options:\n  -h [ --help ]"), std::string::npos) << h.out;
    }
}

TEST(CliOutput, ListMarksTheDefaultPresetAndBackend) {
    auto r = run("list");
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string presets = r.out.substr(r.out.find("hardware presets (--hw):"));
    EXPECT_NE(presets.find("\n  step_eval        (default) STeP paper"), std::string::npos) << presets;
    EXPECT_EQ(presets.find("(default) "), presets.rfind("(default) ")) << "one default preset: " << presets;
    EXPECT_NE(r.out.find("backends (--backend): roofline (default), interp, cycle"), std::string::npos);
    r = run("list --json");
    ASSERT_EQ(r.code, 0) << r.err;
    int defaults = 0;
    const auto list = nlohmann::json::parse(r.out);
    for (const auto& p : list["hw_presets"]) {
        EXPECT_TRUE(p["default"].is_boolean()) << p;
        if (p["default"].get<bool>()) {
            ++defaults;
            EXPECT_EQ(p["name"], "step_eval");
        }
    }
    EXPECT_EQ(defaults, 1);
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

// The binary carries its bundled traces: a copy outside the source and build trees runs the MoE and attention
// defaults from its own directory, and their params name the bundled trace, not a path of the build machine.
TEST(CliPortable, ACopiedBinaryRunsTheBundledTracesFromAnywhere) {
    const auto dir = std::filesystem::temp_directory_path() / ("steprdu_copy_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const auto copy = dir / "steprdu";
    std::filesystem::copy_file(STEPRDU_BINARY, copy);
    {
        // Nothing in the binary points at the shipped files.
        std::ifstream in(copy, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        EXPECT_EQ(bytes.find(std::string(STEPRDU_SOURCE_DIR) + "/traces/synthetic"), std::string::npos);
    }
    for (const auto& [args, trace] :
         {std::pair<std::string, std::string>{"run moe --json", "bundled:mixtral_b64_seed5.csv"},
          {"run moe model=qwen --json", "bundled:qwen_b64_seed5.csv"},
          {"run attention --backend roofline --json", "bundled:kv_b64_seed5.csv"}}) {
        auto r = steprdu::test::runBinary("./steprdu", args, dir.string());
        ASSERT_EQ(r.code, 0) << args << ": " << r.err;
        const auto j = nlohmann::json::parse(r.out);
        EXPECT_EQ(j["params"]["trace"], trace) << args;
        EXPECT_GT(j["cycles"].get<std::int64_t>(), 0) << args;
        // The same run of the binary in the build tree gives the same cycles.
        EXPECT_EQ(j["cycles"], nlohmann::json::parse(run(args).out)["cycles"]) << args;
    }
    // A bundled trace by name, and a user's file by path, still work.
    auto r = steprdu::test::runBinary("./steprdu", "analyze attention trace=bundled:kv_b16_seed5.csv --json",
                                      dir.string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["params"]["batch"], 16);
    {
        std::ofstream kv(dir / "kv.csv");
        kv << "request,kv_len\n";
        for (int i = 0; i < 20; ++i)
            kv << i << "," << 100 + 10 * i << "\n";
    }
    r = steprdu::test::runBinary("./steprdu", "analyze attention trace=kv.csv --json", dir.string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["params"]["trace"], "kv.csv");
    r = steprdu::test::runBinary("./steprdu", "analyze moe trace=bundled:mixtral_b64_seed6.csv",
                                 dir.string());
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(oneLine(r.err).find("bundled:mixtral_b64_seed6.csv: cannot open routing trace: unknown bundled "
                                  "trace"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("did you mean 'mixtral_b64_seed5.csv'?"), std::string::npos) << r.err;
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
    EXPECT_NE(oneLine(r.err).find("pnr: PCU overflow: the graph needs 40 PCUs (20480 FLOP/cycle), the 4 x 4 "
                                  "grid of 'tiny' has 8 (largest: MapAccum 'gate' 8"),
              std::string::npos)
        << r.err;
}

// Lowering sizes buffers by capacity: a RepeatStatic element of 16 KiB gets two 8 KiB PMUs and runs; a
// graph whose buffers need more PMUs than the grid has is refused before anything runs.
TEST(CliCycleErrors, APmuOverflowNamesTheDemandTheGridAndTheLargestConsumers) {
    auto ok = run("run moe hidden=512 inter=1024 --backend cycle --set pmu.capacity_bytes=8192 --json");
    EXPECT_EQ(ok.code, 0) << ok.err;
    auto r = run("run moe hidden=512 inter=1024 --backend cycle --set pmu.capacity_bytes=256");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(oneLine(r.err).find("pnr: PMU overflow: the graph needs 12809 PMUs, the 26 x 80 grid of "
                                  "'step_eval' has 1040 (largest: Map 'e0.up' 512"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("PMU capacity cannot shrink"), std::string::npos) << r.err;
}

TEST(CliCycleErrors, UnitOverridesApplyToThatUnitOnly) {
    // The first compute group's host PCU with half the lanes takes longer; the same key elsewhere does not.
    // The constructive placement alone puts that group's host on pcu_r0c0.
    const std::string gemm =
        "run gemm --backend cycle --hw tiny compute_bw=512 --set pnr.placer=constructive ";
    auto base = nlohmann::json::parse(run(gemm + "--json").out);
    auto slow = nlohmann::json::parse(run(gemm + "--set chip.pcu_r0c0.rows=8 --json").out);
    auto elsewhere = nlohmann::json::parse(run(gemm + "--set chip.pcu_r3c3.rows=8 --json").out);
    EXPECT_GT(slow["cycles"].get<std::int64_t>(), base["cycles"].get<std::int64_t>());
    EXPECT_EQ(elsewhere["cycles"], base["cycles"]);
}

// A small time-multiplexed MoE deadlocks with two-element streams (on the roofline too): the cycle backend
// stops with exit code 3 and names the blocked operators, their units and the full streams.
TEST(CliCycleErrors, ADeadlockEndsWithExitCode3NamingOperatorsUnitsAndStreams) {
    // Whether it deadlocks depends on arrival order; on the constructive placement with dimension-order
    // routes it does.
    auto r = run("run moe hidden=64 inter=128 tile_f=32 tile_n=8 regions=2 elem_bytes=4 --backend cycle "
                 "--set pnr.placer=constructive --set rdn.routing=xy");
    EXPECT_EQ(r.code, 3);
    EXPECT_NE(r.err.find("cycle backend: no forward progress at cycle"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Source 'select_slots' on chip.agcu"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("waits for a credit of select_slots[0] -> route_w[1]"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("stream select_slots[0] -> route_w[1]: 4 data element(s) held of capacity 4"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(run("run moe hidden=64 inter=128 tile_f=32 tile_n=8 regions=2 elem_bytes=4").code, 3);
}

// The same deadlock with a run directory: the report is in error.json as well.
TEST(CliCycleErrors, AStoppedRunLeavesItsReportInTheRunDirectory) {
    const auto dir = std::filesystem::temp_directory_path() / ("steprdu_dead_" + std::to_string(::getpid()));
    auto r =
        run("run moe hidden=64 inter=128 tile_f=32 tile_n=8 regions=2 elem_bytes=4 --out " + dir.string());
    ASSERT_EQ(r.code, 3);
    auto e = nlohmann::json::parse(std::ifstream(dir / "error.json"));
    EXPECT_EQ(e["exit_code"], 3);
    EXPECT_NE(e["message"].get<std::string>().find("roofline: no forward progress"), std::string::npos);
    EXPECT_NE(e["message"].get<std::string>().find("is full"), std::string::npos);
    std::filesystem::remove_all(dir);
}

// The forward-progress watchdog: a window shorter than one tile's work (a 256^3 matmul tile, 65,536 cycles on
// one 16 x 16 PCU, 33.5 M cycles at 1 FLOP/cycle on the roofline) stops both timed backends with exit code 3
// within 1.25 windows of the last token, naming the operator and its unit.
TEST(CliWatchdog, NothingMovingForKCyclesEndsWithExitCode3) {
    const std::string gemm = "run gemm tile_m=256 tile_k=256 tile_n=256 compute_bw=1 ";
    auto r = run(gemm + "--watchdog-cycles 10000 --backend cycle");
    EXPECT_EQ(r.code, 3) << r.err;
    const std::string cyc = "no token entered a stream in the 10000 cycles since cycle ";
    auto at = r.err.find(cyc);
    ASSERT_NE(at, std::string::npos) << r.err;
    const long since = std::stol(r.err.substr(at + cyc.size()));
    const auto stopAt = r.err.find(") at cycle ");
    ASSERT_NE(stopAt, std::string::npos) << r.err;
    const long stopped = std::stol(r.err.substr(stopAt + 11));
    EXPECT_GE(stopped - since, 10000);
    EXPECT_LE(stopped - since, 12500);
    EXPECT_NE(r.err.find("MapAccum 'matmul' on chip.pcu"), std::string::npos) << r.err;

    r = run(gemm + "--watchdog-cycles 10000 --backend roofline");
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_NE(r.err.find("watchdog: no operator took a token in the 10000 cycles since cycle"),
              std::string::npos)
        << r.err;
    // Off, the same runs finish.
    EXPECT_EQ(run(gemm + "--backend roofline --watchdog-cycles 0").code, 0);
}

// steprdu pnr: the report and the floorplan, identical for the same seed; bad pnr keys and values exit 2.
TEST(CliPnr, WritesTheReportAndTheFloorplanDeterministically) {
    const auto dir = std::filesystem::temp_directory_path() / ("steprdu_pnr_" + std::to_string(::getpid()));
    auto r = run("pnr attention batch=8 --out " + dir.string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("deadlock-free: yes"), std::string::npos) << r.out;
    auto report = nlohmann::json::parse(std::ifstream(dir / "pnr.json"));
    for (const char* k : {"units", "wirelength", "routing", "annealing", "seed"})
        EXPECT_TRUE(report.contains(k)) << k;
    for (const char* k : {"hops_mean", "hops_max", "max_link_load", "mean_link_load", "iterations"})
        EXPECT_TRUE(report["routing"].contains(k)) << k;
    std::ifstream svg(dir / "floorplan.svg");
    std::string text((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text.rfind("<svg", 0), 0u);
    EXPECT_NE(text.find("<polyline"), std::string::npos);
    auto again = nlohmann::json::parse(run("pnr attention batch=8 --json").out);
    report.erase("seconds");
    report.erase("wall_seconds");
    again.erase("seconds");
    again.erase("wall_seconds");
    EXPECT_EQ(report, again);
    std::filesystem::remove_all(dir);
}

// `run --placement` elaborates the chip from an earlier place and route: from pnr.json or a run directory
// the cycles are those of the run that placed it; a placement of another graph, a missing file and a backend
// that places nothing are refused with exit 2.
TEST(CliPnr, ARunReusesAPlacementFromPnrJsonOrARunDirectory) {
    const auto dir = std::filesystem::temp_directory_path() / ("steprdu_reuse_" + std::to_string(::getpid()));
    ASSERT_EQ(run("pnr attention batch=8 --out " + (dir / "p").string()).code, 0);
    auto placed = run("run attention batch=8 --backend cycle --json --out " + (dir / "r").string());
    ASSERT_EQ(placed.code, 0) << placed.err;
    const auto cycles = nlohmann::json::parse(placed.out)["cycles"];
    for (const auto& from : {dir / "p" / "pnr.json", dir / "r"}) {
        auto reused = run("run attention batch=8 --backend cycle --json --placement " + from.string());
        ASSERT_EQ(reused.code, 0) << reused.err;
        const auto j = nlohmann::json::parse(reused.out);
        EXPECT_EQ(j["cycles"], cycles) << from;
        EXPECT_NE(j["pnr"]["reused_from"].get<std::string>().find(from.string()), std::string::npos);
    }
    auto other = run("run attention batch=8 regions=2 --backend cycle --placement " + (dir / "r").string());
    EXPECT_EQ(other.code, 2);
    EXPECT_NE(other.err.find("result.json: placement operators"), std::string::npos) << other.err;
    auto missing = run("run attention batch=8 --backend cycle --placement " + (dir / "nothing").string());
    EXPECT_EQ(missing.code, 2);
    EXPECT_NE(missing.err.find("no such file"), std::string::npos) << missing.err;
    auto roofline = run("run attention batch=8 --placement " + (dir / "r").string());
    EXPECT_EQ(roofline.code, 2);
    EXPECT_NE(roofline.err.find("--placement: expected --backend cycle"), std::string::npos) << roofline.err;
    std::filesystem::remove_all(dir);
}

TEST(CliPnr, BadKeysAndValuesExit2NamingThem) {
    auto r = run("pnr swiglu --set pnr.sed=3");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(oneLine(r.err).find("pnr.sed"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("did you mean 'pnr.seed'"), std::string::npos) << r.err;
    r = run("pnr swiglu --set pnr.on_overflow=split");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(oneLine(r.err).find("pnr.on_overflow"), std::string::npos) << r.err;
    r = run("pnr swiglu --set rdn.flow_table_entries=1");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(oneLine(r.err).find("pnr: no route for stream"), std::string::npos) << r.err;
}

// The un-time-multiplexed Qwen MoE asks for more compute than one socket has; time-multiplexed at 32 regions
// it fits, and `shrink` makes the static one fit by giving its largest groups fewer PCUs.
TEST(CliPnr, QwenFitsOnlyTimeMultiplexedOrShrunk) {
    auto r = run("pnr moe model=qwen --hw sn40l --set pnr.placer=constructive");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(oneLine(r.err).find("pnr: PCU overflow: the graph needs 6411 PCUs"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("has 1040"), std::string::npos) << r.err;
    r = run("pnr moe model=qwen regions=32 --hw sn40l --set pnr.placer=constructive --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_LE(nlohmann::json::parse(r.out)["units"]["pcu"]["used"].get<int>(), 1040);
    r = run(
        "pnr moe model=qwen --hw sn40l --set pnr.placer=constructive --set pnr.on_overflow=shrink --json");
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["units"]["pcu"]["used"].get<int>(), 1040);
    EXPECT_FALSE(j["shrunk"].empty());
}

// run-graph runs a graph file as `run --out` wrote it: the same operators and traffic as the testbench's run,
// on every backend; a graph file that is not one exits 2 naming the file.
TEST(CliRunGraph, RunsTheGraphFileOfARunDirectory) {
    const auto dir = std::filesystem::temp_directory_path() / ("steprdu_rg_" + std::to_string(::getpid()));
    auto r = run("run copy bytes=65536 streams=2 --backend roofline --json --out " + dir.string());
    ASSERT_EQ(r.code, 0) << r.err;
    const auto direct = nlohmann::json::parse(r.out);
    const std::string file = (dir / "graph.json").string();
    for (const char* backend : {"roofline", "interp", "cycle"}) {
        r = run("run-graph " + file + " --backend " + backend + " --json");
        ASSERT_EQ(r.code, 0) << backend << ": " << r.err;
        const auto g = nlohmann::json::parse(r.out);
        EXPECT_EQ(g["testbench"], "graph");
        EXPECT_EQ(g["off_chip_bytes"], direct["off_chip_bytes"]) << backend;
        EXPECT_EQ(g["simulated_off_chip_bytes"], direct["simulated_off_chip_bytes"]) << backend;
        if (std::string(backend) == "roofline") {
            EXPECT_EQ(g["cycles"], direct["cycles"]);
        }
    }
    std::ofstream(dir / "bad.json") << "{\"format\": \"steprdu-graph-1\", \"tensors\": 3}";
    r = run("run-graph " + (dir / "bad.json").string());
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("bad.json: graph:"), std::string::npos) << r.err;
    // A float where an integer belongs is named, not cast (casting 1e300 to an integer is undefined).
    std::ofstream(dir / "float.json")
        << "{\"format\": \"steprdu-graph-1\", \"operators\": [], \"tensors\": "
           "[{\"name\": \"w\", \"rows\": 6.4e54, \"cols\": 4, \"elem\": \"f32\", "
           "\"init\": \"zeros\", \"seed\": 0}]}";
    r = run("run-graph " + (dir / "float.json").string());
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("float.json: graph: tensor 'w': rows: expected an integer"), std::string::npos)
        << r.err;
    EXPECT_EQ(run("run-graph --json").code, 2);
    std::filesystem::remove_all(dir);
}

namespace {
std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
} // namespace

// Links that routing leaves loaded beyond their bandwidth are a warning on stderr (not with --quiet) and a
// list in pnr.json, heaviest first. SwiGLU on step_eval placed from seed 1 alone leaves some.
TEST(CliPnr, OverSubscribedLinksAreAWarningAndAListInPnrJson) {
    auto r = run("pnr swiglu --json --set pnr.starts=1 --set pnr.repair=false");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const auto& over = j["routing"]["oversubscribed_links"];
    ASSERT_FALSE(over.empty());
    EXPECT_EQ(over.size(), j["routing"]["overused_links"].get<std::size_t>());
    EXPECT_NEAR(over[0]["load"].get<double>(), j["routing"]["max_link_load"].get<double>(), 1e-9);
    for (std::size_t i = 0; i < over.size(); ++i) {
        EXPECT_GT(over[i]["load"].get<double>(), 1.0);
        if (i) {
            EXPECT_LE(over[i]["load"].get<double>(), over[i - 1]["load"].get<double>());
        }
    }
    ASSERT_EQ(j["warnings"].size(), 1u);
    EXPECT_NE(r.err.find("steprdu: warning: place and route: " + std::to_string(over.size()) +
                         " link(s) left over-subscribed"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(run("pnr swiglu --quiet --set pnr.starts=1 --set pnr.repair=false").err, "");
}

// compare names where the cycles went: the last operators to finish with the shares of their finish cycle
// (each share in [0, 1], busy and waiting together at most the whole), the streams that move the most with
// the bandwidth they need at the roofline's pace (data bytes over the roofline's cycles) against what they
// achieved (over the cycle level's) and what its fabric lanes carry; no memory-channel section behind the
// published node (step_eval); --out writes the JSON and the text.
TEST(CliCompare, NamesTheLastOperatorsAndTheBusiestStreamsAndWritesOut) {
    const auto dir = std::filesystem::temp_directory_path() / "steprdu-compare-test";
    std::filesystem::remove_all(dir);
    auto r = run("compare swiglu --quiet --json --out " + dir.string());
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const double rc = j["roofline"]["cycles"].get<double>(), cc = j["cycle"]["cycles"].get<double>();
    ASSERT_FALSE(j["last_operators"].empty());
    EXPECT_EQ(j["last_operators"][0]["finish_cycle"].get<double>(), cc);
    for (const auto& op : j["last_operators"]) {
        double sum = 0;
        for (const char* k :
             {"busy_share", "stall_input_share", "stall_output_share", "stall_memory_share"}) {
            EXPECT_GE(op[k].get<double>(), 0.0) << op;
            sum += op[k].get<double>();
        }
        EXPECT_LE(sum, 1.0 + 1e-9) << op;
    }
    const auto& streams = j["busiest_streams"];
    ASSERT_FALSE(streams.empty());
    for (std::size_t i = 0; i < streams.size(); ++i) {
        const double bytes = streams[i]["data_bytes"].get<double>();
        EXPECT_DOUBLE_EQ(streams[i]["needed_bytes_per_cycle"].get<double>(), bytes / rc);
        EXPECT_DOUBLE_EQ(streams[i]["achieved_bytes_per_cycle"].get<double>(), bytes / cc);
        EXPECT_GE(streams[i]["lanes"].get<double>(), 0.0);
        EXPECT_EQ(streams[i]["lanes_bytes_per_cycle"].get<double>(), 64 * streams[i]["lanes"].get<double>());
        if (i) {
            EXPECT_LE(bytes, streams[i - 1]["data_bytes"].get<double>());
        }
    }
    EXPECT_FALSE(j.contains("busiest_memory_channels"));
    EXPECT_TRUE(j.contains("busiest_switches"));
    EXPECT_EQ(nlohmann::json::parse(slurp(dir / "compare.json")), j);
    const std::string text = slurp(dir / "compare.txt");
    EXPECT_NE(text.find("last operators to finish"), std::string::npos) << text;
    EXPECT_EQ(text.find("busiest memory channels"), std::string::npos) << text;
    std::filesystem::remove_all(dir);
}

// pnr.evaluate: the ranked starts are simulated and the fewest cycles kept. From seed 5 the ranking puts
// start 8 first (7,962 cycles) and start 6 is fastest (6,605): run keeps it, as one start from seed 6 alone
// gives, and pnr.evaluate=1 keeps the ranking's first without simulating.
TEST(CliPnr, SimulatedEvaluationKeepsTheFastestStart) {
    auto r = run("pnr swiglu --quiet --json --set pnr.seed=5");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto pnr = nlohmann::json::parse(r.out);
    ASSERT_EQ(pnr["evaluated"].size(), 4u) << pnr["evaluated"];
    std::int64_t fewest = INT64_MAX;
    for (const auto& e : pnr["evaluated"])
        fewest = std::min(fewest, e["cycles"].get<std::int64_t>());
    EXPECT_EQ(pnr["evaluated"][0]["seed"], 8);
    EXPECT_EQ(pnr["seed"], 6);
    EXPECT_GT(pnr["seconds"]["evaluate"].get<double>(), 0);
    auto cycles = [](const std::string& args) {
        auto j = run("run swiglu --backend cycle --quiet --json " + args);
        EXPECT_EQ(j.code, 0) << j.err;
        return nlohmann::json::parse(j.out);
    };
    const auto kept = cycles("--set pnr.seed=5");
    EXPECT_EQ(kept["cycles"].get<std::int64_t>(), fewest);
    EXPECT_EQ(kept["pnr"]["seed"], 6);
    EXPECT_FALSE(kept["pnr"].contains("reused_from"));
    EXPECT_EQ(cycles("--set pnr.seed=6 --set pnr.starts=1")["cycles"].get<std::int64_t>(), fewest);
    const auto ranked = cycles("--set pnr.seed=5 --set pnr.evaluate=1");
    EXPECT_EQ(ranked["pnr"]["seed"], 8);
    EXPECT_EQ(ranked["cycles"], pnr["evaluated"][0]["cycles"]);
    EXPECT_FALSE(ranked["pnr"].contains("evaluated"));
}

// A floorplan coloured by group: MoE's experts (e0.up, e0.down, ... are expert e0) each one colour, one
// legend entry and one label, the operators without a prefix grey as "shared"; by kind, one entry per STeP
// operator; a bad --color-by exits 2 naming the values it takes.
TEST(CliPnr, TheFloorplanColoursExpertsAndKindsWithAShortLegend) {
    const auto dir = std::filesystem::temp_directory_path() / "steprdu-floorplan-groups";
    std::filesystem::remove_all(dir);
    auto legendOf = [](const std::string& svg) {
        std::vector<std::string> lines;
        const std::string swatch = "width=\"8\" height=\"8\"";
        for (auto at = svg.find(swatch); at != std::string::npos; at = svg.find(swatch, at + 1)) {
            const auto text = svg.find("\">", svg.find("<text", at)) + 2;
            lines.push_back(svg.substr(text, svg.find('<', text) - text));
        }
        return lines;
    };
    auto r = run("pnr moe --quiet --out " + dir.string());
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string svg = slurp(dir / "floorplan.svg");
    const auto legend = legendOf(svg);
    ASSERT_EQ(legend.size(), 9u) << svg; // shared and eight experts, by default (auto finds the groups)
    EXPECT_EQ(legend[0].rfind("shared (", 0), 0u) << legend[0];
    for (int e = 0; e < 8; ++e) {
        const std::string key = "e" + std::to_string(e);
        EXPECT_TRUE(std::any_of(legend.begin(), legend.end(), [&](const std::string& l) {
            return l.rfind(key + " (12 operators, ", 0) == 0;
        })) << key;
        EXPECT_NE(svg.find("paint-order=\"stroke\">" + key + "<"), std::string::npos) << key << " unlabelled";
    }
    // Eight colours for the experts, then grey for what is shared.
    EXPECT_NE(svg.find("fill=\"#1f77b4\"/><text"), std::string::npos);
    EXPECT_NE(svg.find("fill=\"#9a9a9a\"/><text"), std::string::npos);
    r = run("pnr moe --quiet --color-by kind --out " + dir.string());
    ASSERT_EQ(r.code, 0) << r.err;
    const auto kinds = legendOf(slurp(dir / "floorplan.svg"));
    EXPECT_LE(kinds.size(), 12u);
    EXPECT_TRUE(std::any_of(kinds.begin(), kinds.end(),
                            [](const std::string& l) { return l.rfind("Map (", 0) == 0; }));
    r = run("pnr moe --quiet --color-by rainbow --out " + dir.string());
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("--color-by: expected auto, group, kind or operator, found 'rainbow'"),
              std::string::npos)
        << r.err;
    std::filesystem::remove_all(dir);
}

// floorplan.svg reads as a picture: a legend from colour to operator with its units and lanes out, the names
// of groups of four units or more on them, and every over-subscribed link in red; pnr.json lists each
// stream's lanes.
TEST(CliPnr, TheFloorplanHasALegendGroupLabelsAndOverSubscribedLinksInRed) {
    const auto dir = std::filesystem::temp_directory_path() / "steprdu-floorplan-test";
    std::filesystem::remove_all(dir);
    auto r = run("pnr swiglu --quiet --out " + dir.string());
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(slurp(dir / "pnr.json"));
    const std::string svg = slurp(dir / "floorplan.svg");
    for (const char* entry : {">gate (8 pcus)<", ">load_x (4 agcus)<", ">store_out (1 agcu)<",
                              ">load_w_gate (8 agcus, 8 lanes out)<"})
        EXPECT_NE(svg.find(entry), std::string::npos) << entry;
    // The gate weights arrive on as many lanes as gate has PCUs, each through a stage PMU of its own.
    bool weights = false;
    for (const auto& st : j["streams"])
        if (st["stream"] == "load_w_gate[0] -> gate[1]") {
            weights = true;
            EXPECT_EQ(st["lanes"], 8);
            EXPECT_EQ(st["stage_pmus"], 8);
        }
    EXPECT_TRUE(weights) << j["streams"];
    EXPECT_NE(
        svg.find("font-weight=\"bold\" stroke=\"white\" stroke-width=\"2\" paint-order=\"stroke\">down<"),
        std::string::npos);
    std::size_t red = 0;
    for (auto at = svg.find("stroke=\"red\""); at != std::string::npos;
         at = svg.find("stroke=\"red\"", at + 1))
        ++red;
    EXPECT_EQ(red, j["routing"]["oversubscribed_links"].size());
    std::filesystem::remove_all(dir);
}
