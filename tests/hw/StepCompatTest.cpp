// hw::stepCompatWarning (issue 41): a key the user set or swept whose meaning roofline.step_compat distorts
// is named with the quirk and the way out; nothing for other keys, with the switch off, or on a backend the
// quirk does not reach.
#include <string>

#include <gtest/gtest.h>

#include "hw/config/ConfigSchema.h"
#include "hw/config/HwConfigLoader.h"
#include "hw/config/StepCompat.h"

using namespace steprdu::hw;

namespace {

const StepCompatBackends kRoofline{true, false}, kCycle{false, true}, kInterp{false, false};

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

} // namespace

TEST(StepCompat, WarnsForHbmChannelsWithTheSwitchOn) {
    const HwConfig cfg = loadHwConfig("step_eval");
    ASSERT_TRUE(cfg.roofline.step_compat);
    const std::string w = stepCompatWarning({"hbm.channels=30"}, cfg, kRoofline);
    EXPECT_TRUE(has(w, "what hbm.channels measures. hbm.channels: ")) << w;
    EXPECT_TRUE(has(w, "offset")) << w;
    EXPECT_TRUE(has(w, "--set roofline.step_compat=false")) << w;
    // A sweep axis spells it hw.<key>, a bare key works too.
    EXPECT_EQ(stepCompatWarning({"hw.hbm.channels"}, cfg, kRoofline), w);
    EXPECT_EQ(stepCompatWarning({"hbm.channels"}, cfg, kRoofline), w);
}

TEST(StepCompat, SaysNothingWithTheSwitchOff) {
    HwConfig cfg = loadHwConfig("step_eval");
    applyOverride(cfg, "roofline.step_compat=false");
    EXPECT_EQ(stepCompatWarning({"hbm.channels=30", "hbm.startup_cycles=0"}, cfg, kRoofline), "");
    // sn40l has it off.
    EXPECT_EQ(stepCompatWarning({"hbm.channels=30"}, loadHwConfig("sn40l"), kRoofline), "");
}

TEST(StepCompat, SaysNothingForAnUnrelatedKey) {
    const HwConfig cfg = loadHwConfig("step_eval");
    for (const char* key : {"pmu.bandwidth_bytes_per_cycle=128", "hbm.latency_cycles=20",
                            "hbm.init_interval_cycles=1", "pnr.seed=3", "chip.pcu_r0c0.simd_lanes=8"})
        EXPECT_EQ(stepCompatWarning({key}, cfg, kRoofline), "") << key;
}

TEST(StepCompat, NamesEveryDistortedKeyInOneWarningWithItsReason) {
    const HwConfig cfg = loadHwConfig("step_eval");
    const std::string w = stepCompatWarning({"hbm.startup_cycles=0", "pmu.bandwidth_bytes_per_cycle=32",
                                             "roofline.channel_depth=4", "hbm.channels=36"},
                                            cfg, kRoofline);
    EXPECT_TRUE(
        has(w, "what hbm.channels, hbm.startup_cycles and roofline.channel_depth measure. hbm.channels: "))
        << w;
    EXPECT_TRUE(has(w, "charged on every request")) << w;
    EXPECT_TRUE(has(w, "credit stamps")) << w;
    EXPECT_TRUE(has(w, "Broadcast")) << w;
    EXPECT_FALSE(has(w, "pmu.bandwidth")) << w;
}

TEST(StepCompat, ReachesTheCycleBackendOnlyThroughTheStepNodeTier) {
    HwConfig cfg = loadHwConfig("step_eval");
    // The cycle backend's step_node tier is the published HBM node, quirks and all.
    const std::string w = stepCompatWarning({"hbm.channels=30", "roofline.channel_depth=4"}, cfg, kCycle);
    EXPECT_TRUE(has(w, "hbm.channels")) << w;
    // The stream depth quirks are the roofline engine's own.
    EXPECT_FALSE(has(w, "roofline.channel_depth")) << w;
    EXPECT_EQ(stepCompatWarning({"roofline.channel_depth=4"}, cfg, kCycle), "");
    // A DRAM tier has none of them; the interpreter has no time.
    applyOverride(cfg, "memory.hbm=hbm2");
    EXPECT_EQ(stepCompatWarning({"hbm.channels=30"}, cfg, kCycle), "");
    EXPECT_EQ(stepCompatWarning({"hbm.channels=30"}, loadHwConfig("step_eval"), kInterp), "");
}

TEST(StepCompat, SaysNothingWhenTheUserSetTheSwitchThemselves) {
    const HwConfig cfg = loadHwConfig("step_eval");
    EXPECT_EQ(stepCompatWarning({"roofline.step_compat=true", "hbm.channels=30"}, cfg, kRoofline), "");
    EXPECT_EQ(stepCompatWarning({"hw.roofline.step_compat", "hw.hbm.channels"}, cfg, kRoofline), "");
}

TEST(StepCompat, EveryKeyIsASchemaKey) {
    for (const auto& k : stepCompatKeys()) {
        EXPECT_NE(findConfigKey(k.key), nullptr) << k.key;
        EXPECT_FALSE(k.reason.empty()) << k.key;
    }
}
