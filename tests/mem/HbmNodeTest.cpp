// The HBM node against numbers derived by hand from its rules (Ramulator-style latency and bandwidth checks).
#include <gtest/gtest.h>

#include "hw/mem/step_node/HbmNode.h"

using namespace steprdu::hw::mem;

namespace {
HbmParams clean() {
    HbmParams p;
    p.startupEveryRequest = false;
    p.triangularOffset = false;
    return p;
}
} // namespace

TEST(RooflineHbm, SingleRequestLatency) {
    // Issued at 0: visible to the front end at 1, at the channel at 2, served at 2; start-up 14 + latency 2,
    // one hop back: delivered at 2 + 16 + 1 = 19.
    for (bool compat : {true, false}) {
        HbmParams p = clean();
        p.startupEveryRequest = compat;
        HbmNode h(p);
        std::int64_t at = -1;
        h.submit(0, false, 0, 1, 1, [&](std::int64_t d) { at = d; });
        h.advanceTo(1000);
        EXPECT_EQ(at, 19);
    }
}

TEST(RooflineHbm, StartupOnlyOnFirstRequestWithoutCompat) {
    // Two requests from one client, par 1: cycles 1 and 2 at the front end, channels 0 and 1 (round robin),
    // served at 2 and 3. Clean mode: both channels are new, so both pay start-up: 19 and 20. A third request
    // to channel 0 after it started pays only the 2-cycle latency.
    HbmParams p = clean();
    p.channels = 2;
    HbmNode h(p);
    std::int64_t at = -1;
    h.submit(0, false, 0, 3, 1, [&](std::int64_t d) { at = d; });
    h.advanceTo(1000);
    // Third request: front end cycle 3, channel 0 (free at 4 after II 2 from 2): served at 4, delivered
    // 4+2+1.
    EXPECT_EQ(at, 20);
}

TEST(RooflineHbm, PeakBandwidthIsChannelsTimesRequestOverInterval) {
    // 64 clients keep the front end saturated; 32 channels accepting one request every 2 cycles serve 16
    // requests per cycle = 1024 B/cycle. 64 clients x 4096 requests = 262144 requests take ~16384 cycles.
    HbmNode h(clean());
    std::int64_t last = 0;
    for (int c = 0; c < 64; ++c)
        h.submit(c, false, 0, 4096, 1, [&](std::int64_t d) { last = std::max(last, d); });
    h.advanceTo(HbmNode::kNever - 1);
    double bytesPerCycle = 64.0 * 4096 * 64 / last;
    EXPECT_NEAR(bytesPerCycle, 1024.0, 1024.0 * 0.01);
    EXPECT_EQ(h.stats().requests, 64 * 4096);
}

TEST(RooflineHbm, OneClientIsLimitedByItsDispatchRate) {
    // par_dispatch 1: one 64-byte request per cycle, so 64 B/cycle however many channels there are.
    HbmNode h(clean());
    std::int64_t at = 0;
    h.submit(0, false, 0, 8192, 1, [&](std::int64_t d) { at = d; });
    h.advanceTo(HbmNode::kNever - 1);
    // The last packet is visible at 8192 and reaches its channel at 8193; without the compat quirk only a
    // channel's first request pays start-up, so it is back after latency 2 and one hop.
    EXPECT_EQ(at, 8192 + 1 + 2 + 1);
}

TEST(RooflineHbm, TriangularOffsetCollidesAndCostsBandwidth) {
    // With the published simulator's offset quirk, requests of one cycle land on channels 0, 1, 3, 6, ...
    // which collide for more than a few requests per cycle: the same load takes longer than with round robin.
    auto run = [](bool quirk) {
        HbmParams p = clean();
        p.triangularOffset = quirk;
        HbmNode h(p);
        std::int64_t last = 0;
        for (int c = 0; c < 24; ++c)
            h.submit(c, false, 0, 2048, 1, [&](std::int64_t d) { last = std::max(last, d); });
        h.advanceTo(HbmNode::kNever - 1);
        return last;
    };
    EXPECT_GT(run(true), run(false));
}

TEST(RooflineHbm, AWindowHoldsPacketsUntilSlotsComeBack) {
    // Four requests, par 1, a window of 2 slots returning 10 cycles after delivery. Packets are visible at
    // 1, 1, 2, 3. Cycle 1: channel 0, served at 2, delivered 2 + 14 + 2 + 1 = 19, slot back at 29. Cycle 2:
    // channel 1, delivered 20, back at 30. The third packet waits for the slot of 29: channel 2 (new, so
    // start-up again), served at 30, delivered 47. The fourth goes at 30 when the second slot is back:
    // channel 3, served at 31, delivered 48. Without the window: 22.
    for (int window : {2, 0}) {
        HbmNode h(clean());
        h.setWindow(0, window, 10);
        std::int64_t at = -1;
        h.submit(0, false, 0, 4, 1, [&](std::int64_t d) { at = d; });
        h.advanceTo(HbmNode::kNever - 1);
        EXPECT_EQ(at, window ? 48 : 22) << "window " << window;
    }
}
