#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "hw/config/ConfigSchema.h"
#include "hw/config/HwConfigLoader.h"
#include "util/Error.h"

using namespace steprdu;
using namespace steprdu::hw;
namespace fs = std::filesystem;

namespace {

// The BadInput message of loading `presetOrFile`.
std::string loadError(const std::string& presetOrFile) {
    try {
        loadHwConfig(presetOrFile);
    } catch (const BadInput& e) {
        return e.what();
    }
    return "(no error)";
}

std::string overrideError(const std::string& assignment) {
    HwConfig cfg;
    try {
        applyOverride(cfg, assignment);
    } catch (const BadInput& e) {
        return e.what();
    }
    return "(no error)";
}

std::string readFile(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Each test gets its own directory: CTest may run tests in parallel processes.
class HwTempDir : public ::testing::Test {
  protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::temp_directory_path() /
               fmt::format("steprdu_hw_{}_{}_{}", getpid(), info->test_suite_name(), info->name());
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string write(const std::string& name, const std::string& text) {
        fs::path p = dir_ / name;
        std::ofstream(p) << text;
        return p.string();
    }

    fs::path dir_;
};

class HwValidation : public HwTempDir {};
class HwInheritance : public HwTempDir {};
class HwRoundTrip : public HwTempDir {};

} // namespace

TEST(HwPresets, AreTheShippedYamlFiles) {
    EXPECT_EQ(presetNames(), (std::vector<std::string>{"sn40l", "step_eval", "step_validation", "tiny"}));
}

TEST(HwPresets, CarryTheirNameAndADescription) {
    for (const auto& n : presetNames()) {
        HwConfig cfg = loadHwConfig(n);
        EXPECT_EQ(cfg.name, n);
        EXPECT_FALSE(cfg.description.empty()) << n;
        EXPECT_EQ(cfg.description.find('\n'), std::string::npos) << n;
        EXPECT_EQ(presetDescription(n), cfg.description);
    }
    EXPECT_THROW(presetDescription("nosuch"), BadInput);
}

// Guards the build-time embedding: the binary's presets are the current files.
TEST(HwPresets, EmbeddedTextMatchesTheSourceTree) {
    for (const auto& n : presetNames()) {
        HwConfig fromFile = loadHwConfig(std::string(STEPRDU_SOURCE_DIR) + "/configs/" + n + ".yaml");
        EXPECT_TRUE(fromFile == loadHwConfig(n)) << n;
    }
}

TEST(HwPresets, StepEvalIsThePaperSection51Setup) {
    HwConfig c = loadHwConfig("step_eval");
    EXPECT_EQ(c.pmu.bandwidth_bytes_per_cycle, 64);
    EXPECT_EQ(c.hbm.request_bytes, 64);
    EXPECT_EQ(c.hbm.channels, 32);
    EXPECT_EQ(c.hbm.latency_cycles, 2);
    EXPECT_EQ(c.hbm.init_interval_cycles, 2);
    EXPECT_EQ(c.hbm.outstanding_per_channel, 1);
    EXPECT_EQ(c.hbm.startup_cycles, 14);
    EXPECT_TRUE(c.roofline.step_compat);
    EXPECT_DOUBLE_EQ(c.hbm.peakBytesPerCycle(), 1024.0);
}

TEST(HwPresets, StepValidationIsThePaperSection45Setup) {
    HwConfig c = loadHwConfig("step_validation");
    EXPECT_EQ(c.pmu.bandwidth_bytes_per_cycle, 256);
    EXPECT_EQ(c.hbm.request_bytes, 64);
    EXPECT_EQ(c.hbm.channels, 8);
    EXPECT_EQ(c.hbm.latency_cycles, 2);
    EXPECT_EQ(c.hbm.init_interval_cycles, 2);
    EXPECT_EQ(c.hbm.outstanding_per_channel, 1);
    EXPECT_EQ(c.hbm.startup_cycles, 14);
    EXPECT_DOUBLE_EQ(c.hbm.peakBytesPerCycle(), 256.0);
}

TEST(HwPresets, Sn40lIsTheHardwareTable) {
    HwConfig c = loadHwConfig("sn40l");
    EXPECT_DOUBLE_EQ(c.clock_ghz, 1.2);
    EXPECT_EQ(c.pmu.bandwidth_bytes_per_cycle, 128);
    EXPECT_EQ(c.pmu.capacity_bytes, 512 * 1024);
    EXPECT_EQ(c.pmu.banks, 16);
    EXPECT_EQ(c.pcu.peakFlopsPerCycle(), 512);
    EXPECT_EQ(c.pcu.simd_lanes, 16);
    EXPECT_EQ(c.hbm.latency_cycles, 120);
    EXPECT_EQ(choiceName(hbmDevices(), c.memory.hbm), "hbm2e");
    EXPECT_EQ(choiceName(ddrDevices(), c.memory.ddr), "ddr5");
    EXPECT_EQ(c.rdn.flit_bytes, 64);
    EXPECT_EQ(c.rdn.switch_latency_cycles + c.rdn.link_latency_cycles, 2);
    EXPECT_EQ(c.rdn.vc_buffer_flits, 4);
    EXPECT_FALSE(c.roofline.step_compat);
    // 1.8 TB/s at 1.2 GHz is 1500 B/cycle; 1536 is the nearest the integer channel model gets.
    EXPECT_DOUBLE_EQ(c.hbm.peakBytesPerCycle(), 1536.0);
    // Checkerboard tiles: half the units are PCUs, 1040 per socket.
    EXPECT_EQ(c.chip.tiles() * c.chip.rows * c.chip.cols / 2, 1040);
    EXPECT_EQ(c.chip.dies, 2);
    // 1040 PCUs x 512 FLOP/cycle x 1.2 GHz = the official 638 TFLOPS.
    EXPECT_NEAR(1040.0 * c.pcu.peakFlopsPerCycle() * c.clock_ghz / 1000, 638.0, 1.0);
}

TEST_F(HwValidation, PartialFileKeepsDefaultsAndTakesItsName) {
    std::string path = write("mine.yaml", "hbm:\n  channels: 16\nmemory:\n");
    HwConfig expected;
    expected.name = "mine";
    expected.hbm.channels = 16;
    EXPECT_TRUE(loadHwConfig(path) == expected);
    HwConfig empty;
    empty.name = "empty";
    EXPECT_TRUE(loadHwConfig(write("empty.yaml", "")) == empty);
}

// memory.place.<class> reads the same nested, dotted or from --set.
TEST_F(HwValidation, MemoryPlacementNestsOrDots) {
    HwConfig nested = loadHwConfig(write("n.yaml", "base: sn40l\nmemory:\n  place:\n    weights: ddr\n"));
    HwConfig dotted = loadHwConfig(write("d.yaml", "base: sn40l\nmemory:\n  place.weights: ddr\n"));
    HwConfig set = loadHwConfig("sn40l");
    applyOverride(set, "memory.place.weights=ddr");
    EXPECT_EQ(nameOf(nested.memory.place_weights), "ddr");
    EXPECT_EQ(nameOf(dotted.memory.place_weights), "ddr");
    EXPECT_EQ(nameOf(set.memory.place_weights), "ddr");
    EXPECT_EQ(nameOf(nested.memory.place_activations), "hbm");
    std::string path = write("bad.yaml", "memory:\n  place: ddr\n");
    EXPECT_EQ(loadError(path), path + ": memory.place: expected a mapping of memory.place keys, found 'ddr'");
}

TEST_F(HwValidation, UnknownKeySuggestsTheNearest) {
    std::string path = write("x.yaml", "hbm:\n  chanels: 16\n");
    EXPECT_EQ(loadError(path), path + ": hbm.chanels: unknown key; did you mean 'hbm.channels'?");
    path = write("y.yaml", "hmb:\n  channels: 16\n");
    EXPECT_EQ(loadError(path), path + ": hmb: unknown key; did you mean 'hbm'?");
}

TEST_F(HwValidation, UnknownKeyWithoutSuggestionListsTheSection) {
    std::string path = write("x.yaml", "hbm:\n  zzzzzzzzzzzzzzzz: 1\n");
    EXPECT_EQ(loadError(path), path +
                                   ": hbm.zzzzzzzzzzzzzzzz: unknown key; valid keys of 'hbm': request_bytes, "
                                   "channels, latency_cycles, init_interval_cycles, outstanding_per_channel, "
                                   "startup_cycles");
}

TEST_F(HwValidation, WrongTypeNamesExpectedAndFound) {
    std::string path = write("x.yaml", "hbm:\n  channels: abc\n");
    EXPECT_EQ(loadError(path), path + ": hbm.channels: expected integer in [1, 4096], found 'abc'");
    path = write("y.yaml", "hbm:\n  channels: 2.5\n");
    EXPECT_EQ(loadError(path), path + ": hbm.channels: expected integer in [1, 4096], found 2.5");
    path = write("z.yaml", "hbm:\n  channels: [1, 2]\n");
    EXPECT_EQ(loadError(path), path + ": hbm.channels: expected integer in [1, 4096], found a sequence");
    path = write("b.yaml", "roofline:\n  step_compat: yes\n");
    EXPECT_EQ(loadError(path),
              path + ": roofline.step_compat: expected boolean (true or false), found 'yes'");
    path = write("d.yaml", "clock_ghz: fast\n");
    EXPECT_EQ(loadError(path), path + ": clock_ghz: expected number in [0.01, 100], found 'fast'");
}

TEST_F(HwValidation, OutOfRangeNamesTheRange) {
    std::string path = write("x.yaml", "pmu:\n  bandwidth_bytes_per_cycle: 0\n");
    EXPECT_EQ(loadError(path),
              path + ": pmu.bandwidth_bytes_per_cycle: expected integer in [1, 1048576], found 0");
    path = write("y.yaml", "clock_ghz: .nan\n");
    EXPECT_EQ(loadError(path), path + ": clock_ghz: expected number in [0.01, 100], found '.nan'");
}

TEST_F(HwValidation, NonMappingsAreRejected) {
    std::string path = write("x.yaml", "hbm: 5\n");
    EXPECT_EQ(loadError(path), path + ": hbm: expected a mapping of hbm keys, found 5");
    path = write("y.yaml", "- a\n- b\n");
    EXPECT_EQ(loadError(path), path + ": expected a mapping of config keys, found a sequence");
}

TEST_F(HwValidation, DuplicateKeyIsAnError) {
    std::string path = write("x.yaml", "hbm:\n  channels: 4\n  channels: 8\n");
    EXPECT_EQ(loadError(path), path + ": hbm.channels: duplicate key");
}

TEST_F(HwValidation, YamlSyntaxErrorNamesLineAndColumn) {
    std::string path = write("x.yaml", "pmu:\n  banks: [1, 2\n");
    std::string msg = loadError(path);
    EXPECT_EQ(msg.rfind(path + ":3:1: YAML syntax error: ", 0), 0u) << msg;
}

TEST(HwMissing, NamesThePresets) {
    EXPECT_EQ(loadError("nosuch.yaml"),
              "nosuch.yaml: no such preset or file (presets: sn40l, step_eval, step_validation, tiny)");
}

TEST(HwOverride, SetsTypedValues) {
    HwConfig cfg = loadHwConfig("step_eval");
    applyOverride(cfg, "hbm.channels=16");
    applyOverride(cfg, "clock_ghz = 1.5");
    applyOverride(cfg, "roofline.step_compat=false");
    applyOverride(cfg, "description=a=b");
    EXPECT_EQ(cfg.hbm.channels, 16);
    EXPECT_DOUBLE_EQ(cfg.clock_ghz, 1.5);
    EXPECT_FALSE(cfg.roofline.step_compat);
    EXPECT_EQ(cfg.description, "a=b");
    EXPECT_DOUBLE_EQ(cfg.hbm.peakBytesPerCycle(), 512.0);
}

TEST(HwOverride, RejectsBadAssignments) {
    EXPECT_EQ(overrideError("hbm.channels=abc"),
              "--set hbm.channels: expected integer in [1, 4096], found 'abc'");
    EXPECT_EQ(overrideError("hbm.channels=0"), "--set hbm.channels: expected integer in [1, 4096], found 0");
    EXPECT_EQ(overrideError("hbm.chanels=16"),
              "--set hbm.chanels: unknown key; did you mean 'hbm.channels'?");
    EXPECT_EQ(overrideError("hbm.channels"),
              "--set hbm.channels: expected <key.path>=<value>, found 'hbm.channels'");
    EXPECT_EQ(overrideError("base=sn40l"),
              "--set base: inheritance is only for files; choose the base with --hw <preset|file>");
    EXPECT_EQ(overrideError("agcu=1"),
              "--set agcu: expected a key, found the section 'agcu'; valid keys of 'agcu': "
              "burst_bytes, max_outstanding, bursts_per_cycle, tln_latency_cycles, tiles_in_flight");
    EXPECT_EQ(overrideError("memory.place.weights=sram"),
              "--set memory.place.weights: expected one of hbm, ddr, found 'sram'");
}

TEST_F(HwInheritance, BaseIsAppliedFirstWhereverItAppears) {
    std::string path = write("mine.yaml", "hbm:\n  latency_cycles: 5\nbase: step_validation\n");
    HwConfig cfg = loadHwConfig(path);
    HwConfig expected = loadHwConfig("step_validation");
    expected.name = "mine";
    expected.hbm.latency_cycles = 5;
    EXPECT_TRUE(cfg == expected) << toYaml(cfg);
}

TEST_F(HwInheritance, BaseFileResolvesNextToTheFile) {
    write("parent.yaml", "base: sn40l\npcu:\n  rows: 32\n");
    fs::create_directories(dir_ / "sub");
    std::string child = write("sub/child.yaml", "base: ../parent.yaml\nmemory:\n  ddr_channels: 8\n");
    HwConfig cfg = loadHwConfig(child);
    EXPECT_EQ(cfg.name, "child");
    EXPECT_EQ(cfg.pcu.rows, 32);
    EXPECT_EQ(cfg.memory.ddr_channels, 8);
    EXPECT_EQ(cfg.hbm.latency_cycles, 120);
    EXPECT_EQ(cfg.description, loadHwConfig("sn40l").description);
}

TEST_F(HwInheritance, CyclesAndUnknownBasesAreErrors) {
    std::string a = write("a.yaml", "base: b.yaml\n");
    std::string b = write("b.yaml", "base: a.yaml\n");
    EXPECT_EQ(loadError(a), b + ": base: inheritance cycle " + a + " -> " + b + " -> " + a);
    std::string c = write("c.yaml", "base: nosuch\n");
    EXPECT_EQ(loadError(c),
              c + ": base: expected a preset or file, found 'nosuch' (presets: sn40l, step_eval, "
                  "step_validation, tiny)");
}

// Found by fuzz_hw_config: a base name longer than the file system allows threw filesystem_error.
TEST_F(HwInheritance, ABaseNameNoFileCanHaveIsAnUnknownBase) {
    const std::string name(5000, 'x');
    std::string c = write("long.yaml", "base: " + name + "\n");
    EXPECT_NE(loadError(c).find(c + ": base: expected a preset or file, found '" + name + "'"),
              std::string::npos);
}

TEST_F(HwRoundTrip, DumpReloadsToAnEqualConfig) {
    std::vector<HwConfig> configs;
    for (const auto& n : presetNames())
        configs.push_back(loadHwConfig(n));
    HwConfig odd;
    odd.name = "odd";
    applyOverride(odd, "description=quotes \" colons: and # hashes");
    applyOverride(odd, "clock_ghz=0.3333333333333333");
    applyOverride(odd, "pmu.capacity_bytes=1073741824");
    configs.push_back(odd);
    for (const auto& cfg : configs) {
        std::string path = write(cfg.name + ".yaml", toYaml(cfg));
        EXPECT_TRUE(loadHwConfig(path) == cfg) << toYaml(cfg);
    }
}

TEST_F(HwRoundTrip, DumpsEveryKey) {
    std::string yaml = toYaml(loadHwConfig("sn40l"));
    nlohmann::json json = toJson(loadHwConfig("sn40l"));
    for (const auto& k : configSchema()) {
        EXPECT_NE(yaml.find(k.leaf() + ": "), std::string::npos) << k.path;
        const nlohmann::json& v = k.section().empty() ? json[k.path] : json[k.section()][k.leaf()];
        EXPECT_FALSE(v.is_null()) << k.path;
    }
    EXPECT_EQ(json["hbm"]["channels"], 48);
    EXPECT_EQ(json["roofline"]["step_compat"], false);
    EXPECT_EQ(json["name"], "sn40l");
}

TEST(HwSchema, DefaultsAreInRange) {
    const HwConfig defaults;
    for (const auto& k : configSchema()) {
        if (k.type == KeyType::String) continue;
        auto v = k.parse(k.format(k.get(defaults)));
        ASSERT_TRUE(v.has_value()) << k.path;
        EXPECT_TRUE(*v == k.get(defaults)) << k.path;
    }
}

// docs/config.md holds the generated table between markers, so the documentation cannot drift.
TEST(HwSchema, DocsHoldTheGeneratedTable) {
    const std::string doc = readFile(std::string(STEPRDU_SOURCE_DIR) + "/docs/config.md");
    const std::string begin = "<!-- BEGIN schemaMarkdown() -->\n", end = "<!-- END schemaMarkdown() -->";
    auto b = doc.find(begin), e = doc.find(end);
    ASSERT_NE(b, std::string::npos);
    ASSERT_NE(e, std::string::npos);
    EXPECT_EQ(doc.substr(b + begin.size(), e - b - begin.size()), schemaMarkdown())
        << "replace the table in docs/config.md with the output of `steprdu list --keys` "
           "(scripts/update-doc-tables.sh):\n"
        << schemaMarkdown();
}

// Each tier's peak in fabric bytes per cycle, by device: the published node from the hbm section (step_eval:
// 32 x 64 B / 2 cycles = 1024), a DRAM preset from its data buses at its own clock (HBM2: 8 x 2 x 64 B per 4
// cycles of 1 ns; at 1.2 GHz a fabric cycle is 1/1.2 ns), nothing where there is no tier.
TEST(HwConfig, TierPeakFollowsTheTiersDevice) {
    HwConfig c = loadHwConfig("step_eval");
    EXPECT_DOUBLE_EQ(tierPeakBytesPerCycle(c, Tier::Hbm), c.hbm.peakBytesPerCycle());
    EXPECT_DOUBLE_EQ(tierPeakBytesPerCycle(c, Tier::Hbm), 1024.0);
    EXPECT_DOUBLE_EQ(tierPeakBytesPerCycle(c, Tier::Ddr), 0.0);
    applyOverride(c, "memory.hbm=hbm2");
    applyOverride(c, "clock_ghz=1.2");
    EXPECT_NEAR(tierPeakBytesPerCycle(c, Tier::Hbm), 256.0 / 1.2, 1e-9);
    applyOverride(c, "memory.hbm_channels=4");
    EXPECT_NEAR(tierPeakBytesPerCycle(c, Tier::Hbm), 128.0 / 1.2, 1e-9);
}
