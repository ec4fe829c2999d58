// The HBM node against numbers derived by hand from its rules (Ramulator-style latency and bandwidth checks).
#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

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

namespace {
// A random load: clients each sending a chain of tiles, the next issued when the previous completes (as an
// operator does). Returns every completion cycle in order, and the node's stats.
struct Load {
    std::vector<std::int64_t> completions;
    HbmStats stats;
};
Load runLoad(unsigned seed, bool fastForward) {
    std::mt19937 rng(seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    HbmParams p;
    p.channels = std::vector<int>{4, 8, 32}[pick(0, 2)];
    p.initInterval = pick(1, 3);
    p.latency = pick(1, 4);
    p.startup = pick(0, 14);
    p.startupEveryRequest = pick(0, 1);
    p.triangularOffset = pick(0, 1);
    p.fastForward = fastForward;
    HbmNode h(p);
    const int clients = pick(1, 24);
    std::vector<int> tilesLeft(clients), par(clients);
    std::vector<std::int64_t> size(clients);
    for (int c = 0; c < clients; ++c) {
        tilesLeft[c] = pick(1, 3);
        par[c] = pick(1, 3);
        size[c] = pick(1, 3000);
        if (pick(0, 9) == 0) h.setWindow(c, pick(1, 64), pick(0, 20));
    }
    Load out;
    std::vector<std::pair<int, std::int64_t>> due; // (client, cycle) whose next tile is to be issued
    auto issue = [&](int c, std::int64_t at) {
        --tilesLeft[c];
        h.submit(c, c % 5 == 4, at, size[c], par[c], [&, c](std::int64_t d) {
            out.completions.push_back(d);
            if (tilesLeft[c] > 0) due.emplace_back(c, d);
        });
    };
    for (int c = 0; c < clients; ++c)
        issue(c, pick(0, 300));
    while (h.nextCycle() != HbmNode::kNever) {
        h.advanceTo(HbmNode::kNever - 1);
        for (auto [c, at] : std::exchange(due, {}))
            issue(c, at);
    }
    out.stats = h.stats();
    return out;
}
} // namespace

TEST(RooflineHbm, FastForwardChangesNoCompletion) {
    // Skipping repeated periods must give every tile the completion cycle that serving each packet gives.
    std::int64_t skipped = 0;
    for (unsigned seed = 1; seed <= 150; ++seed) {
        const Load fast = runLoad(seed, true), slow = runLoad(seed, false);
        ASSERT_EQ(fast.completions, slow.completions) << "seed " << seed;
        EXPECT_EQ(fast.stats.requests, slow.stats.requests) << "seed " << seed;
        EXPECT_EQ(fast.stats.lastDelivery, slow.stats.lastDelivery) << "seed " << seed;
        EXPECT_EQ(slow.stats.skippedCycles, 0);
        skipped += fast.stats.skippedCycles;
    }
    EXPECT_GT(skipped, 100000); // the loads do repeat: the check is not vacuous
}

TEST(RooflineHbm, OneStreamIsSkippedInPeriods) {
    // One client, par 1, round robin over 32 channels: packet g is served at front-end cycle g + 1 and
    // delivered at g + 2 + 2 + 14 + 1 (start-up on every request). The cycles repeat with period 32 (the
    // channel offset's): all but the first periods and the last packet's are skipped.
    HbmParams p;
    p.triangularOffset = false;
    HbmNode h(p);
    std::int64_t at = -1;
    h.submit(0, false, 0, 100000, 1, [&](std::int64_t d) { at = d; });
    h.advanceTo(HbmNode::kNever - 1);
    EXPECT_EQ(at, 99999 + 19);
    EXPECT_GT(h.stats().skippedCycles, 99000);
    EXPECT_EQ(h.stats().requests, 100000);
}
