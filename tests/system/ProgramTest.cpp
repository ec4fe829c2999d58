// The system layer alone: launch costs and program schedules against numbers derived by hand, the program
// file's validation, and `steprdu program` end to end.
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "CliRun.h"
#include "hw/config/HwConfigLoader.h"
#include "system/KernelTimer.h"
#include "system/Program.h"
#include "system/ProgramFile.h"
#include "system/Sn40lExperiments.h"
#include "util/Error.h"

namespace steprdu::sys {
namespace {

// step_eval: HBM at 1024 B/cycle, 1.2 GHz; the launch defaults: 8192 B per PCU, 2048 per PMU, 1024 per
// switch, 512 per AGCU, 256 argument bytes, 100 cycles a command, 10 us a host round trip, a 64-cycle gap.
// A: 10 PCUs, 4 PMUs, 2 AGCUs, 14 switches: 81,920 + 8,192 + 14,336 + 1,024 = 105,472 B, 103 cycles + 100.
// B: 1 PCU, 1 PMU, 1 AGCU, 2 switches: 8,192 + 2,048 + 2,048 + 512 = 12,800 B, 13 cycles + 100.
Program twoKernels() {
    Program p;
    Kernel a, b;
    a.name = "A";
    a.footprint = {10, 4, 2, 14};
    a.cycles = 1000;
    a.loopInterval = 600;
    b.name = "B";
    b.footprint = {1, 1, 1, 2};
    b.cycles = 500;
    p.kernels = {a, b};
    p.calls = {0, 0, 0, 1, 0};
    return p;
}

TEST(LaunchModel, ProgramLoadMovesEachUnitsConfigurationAtTheTiersBandwidth) {
    LaunchModel m(hw::loadHwConfig("step_eval"));
    EXPECT_EQ(m.programBytes({10, 4, 2, 14}), 105472);
    EXPECT_EQ(m.programLoadCycles({10, 4, 2, 14}), 203);
    EXPECT_EQ(m.programLoadCycles({1, 1, 1, 2}), 113);
    EXPECT_EQ(m.argumentLoadCycles(1), 101); // 256 B
    EXPECT_EQ(m.argumentLoadCycles(5), 102); // 1,280 B
    EXPECT_EQ(m.hostRoundTripCycles(), 12000);
}

// Calls A A A B A. Program Load: A, then B, then A again (B replaced it): 203 + 113 + 203 = 519.
// Software: five round trips (60,000), five argument loads (505), execution 4 x 1,100 + 600 = 5,000.
// Hardware: one round trip and four gaps (12,256), the rest as software.
// Looping: A x 3, B, A: one round trip and two gaps (12,128), argument loads 101 (768 B) + 101 + 101,
// execution 100 + 1,000 + 2 x 600 and 600 and 1,100 = 4,000.
TEST(Program, EachOrchestrationPaysWhatItShould) {
    const Program p = twoKernels();
    LaunchModel m(hw::loadHwConfig("step_eval"));
    ProgramTime so = timeProgram(p, Orchestration::Software, m);
    EXPECT_EQ(so.launches.size(), 5u);
    EXPECT_EQ(so.host, 60000);
    EXPECT_EQ(so.programLoad, 519);
    EXPECT_EQ(so.argumentLoad, 505);
    EXPECT_EQ(so.execute, 5000);
    EXPECT_EQ(so.total(), 66024);
    EXPECT_EQ(so.programBytes, 105472 * 2 + 12800);
    ProgramTime ho = timeProgram(p, Orchestration::Hardware, m);
    EXPECT_EQ(ho.host, 12256);
    EXPECT_EQ(ho.total(), 12256 + 519 + 505 + 5000);
    ProgramTime loop = timeProgram(p, Orchestration::Looping, m);
    ASSERT_EQ(loop.launches.size(), 3u);
    EXPECT_EQ(loop.launches[0].iterations, 3);
    EXPECT_EQ(loop.host, 12128);
    EXPECT_EQ(loop.programLoad, 519);
    EXPECT_EQ(loop.argumentLoad, 303);
    EXPECT_EQ(loop.execute, 4000);
    // One kernel called once gains nothing from hardware orchestration or looping.
    Program one;
    one.kernels = {p.kernels[0]};
    one.calls = {0};
    EXPECT_EQ(timeProgram(one, Orchestration::Software, m).total(),
              timeProgram(one, Orchestration::Hardware, m).total());
    EXPECT_EQ(timeProgram(one, Orchestration::Software, m).total(),
              timeProgram(one, Orchestration::Looping, m).total());
}

TEST(Program, TheSplitAddsUpPerKernelInJson) {
    const Program p = twoKernels();
    LaunchModel m(hw::loadHwConfig("step_eval"));
    nlohmann::json j = toJson(p, timeProgram(p, Orchestration::Software, m), 1.2);
    EXPECT_EQ(j["cycles"], 66024);
    EXPECT_NEAR(j["seconds"].get<double>(), 66024 / 1.2e9, 1e-12);
    EXPECT_EQ(j["kernels"][0]["calls"], 4);
    EXPECT_EQ(j["kernels"][0]["program_load"], 406);
    EXPECT_EQ(j["kernels"][1]["execute"], 600);
    EXPECT_EQ(j["kernels"][0]["host"].get<int>() + j["kernels"][1]["host"].get<int>(), 60000);
}

TEST(ProgramFile, ReadsKernelsAndRepeatsTheSchedule) {
    ProgramFile f = parseProgram(R"(
kernels:
  - {name: ffn, testbench: swiglu, knobs: {batch: 64}}
  - {name: proj, testbench: gemm, loop_knob: m}
schedule:
  - {kernel: ffn, repeat: 3}
  - proj
  - {calls: [proj, ffn], repeat: 2}
)",
                                 "p.yaml");
    ASSERT_EQ(f.kernels.size(), 2u);
    EXPECT_EQ(f.kernels[0].knobs, std::vector<std::string>{"batch=64"});
    EXPECT_EQ(f.kernels[1].loopKnob, "m");
    EXPECT_EQ(f.calls, (std::vector<int>{0, 0, 0, 1, 1, 0, 1, 0}));
}

void expectBad(const std::string& text, const std::string& message) {
    try {
        parseProgram(text, "p.yaml");
        ADD_FAILURE() << "accepted: " << text;
    } catch (const BadInput& e) {
        EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
}

TEST(ProgramFile, BadProgramsNameTheEntryAndTheKey) {
    const std::string k = "kernels: [{name: a, testbench: gemm}]\n";
    expectBad(k + "schedule: [b]", "p.yaml: schedule[0]: expected a kernel of the program (a), found 'b'");
    expectBad(k + "schedule: [{kernel: a, repeat: 0}]",
              "schedule[0].repeat: expected an integer in [1, 1000000]");
    expectBad(k + "schedule: [{kernel: a, times: 2}]",
              "schedule[0]: expected one of calls, kernel, repeat, found key 'times'");
    expectBad(k + "schedule: [{kernel: a, calls: [a]}]",
              "schedule[0]: expected either kernel or calls, found both");
    expectBad(k + "schedule: [{calls: [a, c]}]",
              "schedule[0].calls[1]: expected a kernel of the program (a), found 'c'");
    expectBad(k + "schedule: []", "schedule: expected a list of calls, found none");
    expectBad("kernels: [{name: a, testbench: gemmm}]\nschedule: [a]", "kernels[0].testbench:");
    expectBad("kernels: [{name: a, testbench: gemm}, {name: a, testbench: gemm}]\nschedule: [a]",
              "kernels[1].name: expected a name no other kernel has, found 'a' again");
    expectBad("kernels: [{name: a, testbench: gemm}\n", "p.yaml: expected YAML");
    // A key that is a list (fuzz_program_file found it escaping as yaml-cpp's conversion error).
    expectBad(k + "schedule: [{[kernel]: a}]",
              "schedule[0]: a key: expected a single value, found a list or map");
}

TEST(LaunchModel, AProgramTierWithoutADeviceIsRefused) {
    hw::HwConfig cfg = hw::loadHwConfig("step_eval");
    hw::applyOverride(cfg, "launch.program_tier=ddr");
    if (hw::tierPeakBytesPerCycle(cfg, hw::Tier::Ddr) > 0) GTEST_SKIP() << "step_eval has a DDR tier";
    try {
        LaunchModel m(cfg);
        ADD_FAILURE() << "accepted a tier without a device";
    } catch (const BadInput& e) {
        EXPECT_NE(std::string(e.what()).find("launch.program_tier"), std::string::npos) << e.what();
    }
}

// End to end on the roofline: two kernels, one called three times; each distinct kernel runs once.
TEST(ProgramCli, TimesEveryOrchestrationAndRunsEachKernelOnce) {
    auto dir = std::filesystem::temp_directory_path() / ("steprdu_program_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "p.yaml") << "kernels:\n  - {name: ffn, testbench: swiglu}\n"
                                     "  - {name: proj, testbench: gemm, knobs: {m: 64, k: 256, n: 256}}\n"
                                     "schedule: [{kernel: ffn, repeat: 3}, proj]\n";
    auto r = test::runCli("program " + (dir / "p.yaml").string() + " --json -q");
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["kernel_runs"], 2);
    ASSERT_EQ(j["orchestrations"].size(), 3u);
    const auto& so = j["orchestrations"][0];
    const auto& ho = j["orchestrations"][1];
    EXPECT_EQ(so["calls"], 4);
    EXPECT_EQ(so["execute"], ho["execute"]);
    EXPECT_EQ(so["host"].get<std::int64_t>() - ho["host"].get<std::int64_t>(), 3 * (12000 - 64));
    EXPECT_LT(j["orchestrations"][2]["cycles"], ho["cycles"]);
    // --out: program.json and the split as stats by path; --backend compare: both backends side by side.
    auto out = test::runCli("program " + (dir / "p.yaml").string() + " -q --out " + (dir / "o").string());
    ASSERT_EQ(out.code, 0) << out.err;
    std::ifstream stats(dir / "o" / "stats.csv");
    const std::string csv((std::istreambuf_iterator<char>(stats)), std::istreambuf_iterator<char>());
    EXPECT_NE(csv.find("program.software.host,48000,cycles\n"), std::string::npos) << csv;
    EXPECT_NE(csv.find("program.hardware.ffn.calls,3,count\n"), std::string::npos) << csv;
    auto both = test::runCli("program " + (dir / "p.yaml").string() +
                             " --backend compare --orchestration hardware "
                             "--json -q");
    ASSERT_EQ(both.code, 0) << both.err;
    auto c = nlohmann::json::parse(both.out);
    ASSERT_EQ(c["orchestrations"].size(), 1u);
    const auto& o = c["orchestrations"][0];
    EXPECT_DOUBLE_EQ(o["ratio"].get<double>(),
                     o["cycle_cycles"].get<double>() / o["roofline_cycles"].get<double>());
    EXPECT_EQ(o["cycle_cycles"], c["cycle"]["orchestrations"][0]["cycles"]);
    EXPECT_EQ(c["kernels"].size(), 2u);
    auto bad = test::runCli("program " + (dir / "p.yaml").string() + " --set launch.command_cycles=-1");
    EXPECT_EQ(bad.code, 2);
    EXPECT_NE(bad.err.find("launch.command_cycles"), std::string::npos) << bad.err;
    std::filesystem::remove_all(dir);
}

} // namespace
} // namespace steprdu::sys

namespace steprdu::sys {
namespace {

// The programs shipped in examples/programs stay valid.
TEST(ProgramFile, TheExamplesParse) {
    int n = 0;
    for (const auto& e :
         std::filesystem::directory_iterator(std::string(STEPRDU_SOURCE_DIR) + "/examples/programs"))
        if (e.path().extension() == ".yaml") {
            SCOPED_TRACE(e.path().string());
            EXPECT_FALSE(readProgramFile(e.path().string()).calls.empty());
            ++n;
        }
    EXPECT_GE(n, 1);
}

} // namespace
} // namespace steprdu::sys

namespace steprdu::sys {
namespace {

// On the chip, Program Load is memory traffic: the kernel's configuration bytes are what the program tier
// reads, and its move takes at least those bytes at the tier's peak (step_eval HBM, 1024 B/cycle) and at
// most that plus a round trip to memory (AGCU to controller 2 x 20 cycles, 2 + 14 for the first response,
// the fabric's hops: under 100 cycles). gemm 64 x 256 x 256 on step_eval: 8 PCUs, 8 PMUs, 8 AGCUs, 16
// switches: 65,536 + 16,384 + 16,384 + 4,096 = 102,400 B, 100 cycles at the peak.
TEST(KernelTimer, OnTheChipProgramLoadIsTheProgramTiersTraffic) {
    tb::RunRequest base;
    base.backend = "cycle";
    base.hw = "step_eval";
    KernelTimer timer(base, tb::hardwareOf(base));
    const Kernel k = timer.time({"proj", "gemm", {"m=64", "k=256", "n=256"}, "", nullptr}, false);
    LaunchModel m(tb::hardwareOf(base));
    const std::int64_t bytes = m.programBytes(k.footprint);
    EXPECT_GT(bytes, 0);
    EXPECT_EQ(k.programTierBytes, bytes);
    const std::int64_t atPeak = (bytes + 1023) / 1024;
    EXPECT_GE(k.programMoveCycles, atPeak);
    EXPECT_LE(k.programMoveCycles, atPeak + 100);
    Program p;
    p.kernels = {k};
    p.calls = {0, 0};
    const ProgramTime t = timeProgram(p, Orchestration::Hardware, m);
    EXPECT_EQ(t.launches[0].programLoad, 100 + k.programMoveCycles); // launch.command_cycles + the move
    EXPECT_EQ(t.launches[1].programLoad, 0);                         // still configured
    EXPECT_EQ(t.programBytes, bytes);
}

// A kernel with one operator larger than the chip stops the program with exit 2, naming the operator and
// the resource: a 1024 x 1024 f32 tile staged twice is 8 MiB, 17 PMUs of 512 KiB on a chip of 8.
TEST(ProgramCli, AnOperatorLargerThanTheChipIsNamed) {
    auto dir = std::filesystem::temp_directory_path() / ("steprdu_program_big_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "p.yaml")
        << "kernels:\n  - {name: big, testbench: gemm, knobs: {m: 1024, k: 1024, n: 64, tile_m: 1024, "
           "tile_k: 1024, tile_n: 64}}\nschedule: [big]\n";
    auto r = test::runCli("program " + (dir / "p.yaml").string() + " --backend cycle --hw tiny");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("kernel 'big' (gemm): pnr: MapAccum 'matmul' alone needs 17 PMUs"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("'tiny' has 8"), std::string::npos) << r.err;
    std::filesystem::remove_all(dir);
}

} // namespace
} // namespace steprdu::sys

namespace steprdu::sys {
namespace {

// A kernel whose testbench is a program (decoder fusion=operator) expands in the file: its kernels named
// after it, each defined once, and every call of it runs them all in order.
TEST(ProgramFile, AnUnfusedLayerExpandsIntoItsOperatorKernels) {
    const ProgramFile f = parseProgram(
        "kernels:\n  - {name: layer, testbench: decoder, knobs: {model: llama2, fusion: operator, batch: 8, "
        "kv_len: 4096}}\n  - {name: head, testbench: gemm}\nschedule: [{kernel: layer, repeat: 2}, head]\n",
        "p.yaml");
    ASSERT_EQ(f.kernels.size(), 14u);
    EXPECT_EQ(f.kernels[0].name, "layer.q_proj");
    EXPECT_EQ(f.kernels[12].name, "layer.down_proj");
    ASSERT_EQ(f.calls.size(), 27u);
    EXPECT_EQ(f.calls[13], 0);
    EXPECT_EQ(f.calls[26], 13);
    EXPECT_THROW(parseProgram("kernels:\n  - {name: l, testbench: decoder, knobs: {fusion: operator}, "
                              "loop_knob: layers}\nschedule: [l]\n",
                              "p.yaml"),
                 BadInput);
}

// Fig 11's counts need no timing: 13 operator kernels per layer against one fused layer, 32 layers.
TEST(Sn40lExperiments, Fig11CountsKernelCallsUnfusedOverFused) {
    tb::RunRequest base;
    base.hw = "sn40l";
    const SystemExperiment e = runSystemExperiment("sn40l_fig11", base);
    ASSERT_EQ(e.rows.size(), 3u);
    for (const auto& r : e.rows) {
        EXPECT_EQ(r["unfused_calls"], 416);
        EXPECT_EQ(r["fused_calls"], 32);
        EXPECT_DOUBLE_EQ(r["ratio"].get<double>(), 13.0);
    }
}

} // namespace
} // namespace steprdu::sys

namespace steprdu::sys {
namespace {

// Fig 10 on the roofline (3 s): the fused layer beats the unfused operators at both batches, hardware
// orchestration is never slower than software, and on prefill, whose kernels run for milliseconds, it gains
// at most 1.1x (the paper's bound).
TEST(Sn40lExperiments, Fig10FusedBeatsUnfusedAndPrefillGainsLittleFromHardwareOrchestration) {
    tb::RunRequest base;
    base.hw = "sn40l";
    const SystemExperiment e = runSystemExperiment("sn40l_fig10", base);
    int decode = 0, prefill = 0;
    for (const auto& r : e.rows) {
        SCOPED_TRACE(r.dump());
        if (r["workload"] == "decode" && r["fusion"] == "layer") {
            ++decode;
            EXPECT_GT(r["speedup_over_unfused"].get<double>(), 1.0);
            EXPECT_GE(r["ho_over_so"].get<double>(), 1.0);
        }
        if (r["workload"] == "prefill") {
            ++prefill;
            EXPECT_LE(r["ho_over_so"].get<double>(), 1.1);
        }
    }
    EXPECT_EQ(decode, 6);
    EXPECT_EQ(prefill, 2);
}

} // namespace
} // namespace steprdu::sys
