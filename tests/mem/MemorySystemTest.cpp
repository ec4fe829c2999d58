// The memory system's two schedules for an advance within the lookahead: every channel deciding its cycles in
// one visit, with its completions reported afterwards, against the cycle-by-cycle loop that reports them as
// they come. The fabric acts on reports in the order it gets them, so the order must be the same, not only
// the cycles.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "hw/mem/dram/MemorySystem.h"

using namespace steprdu::hw::mem;

namespace {

// (request or transaction's request, data cycle, 0 for a transaction and 1 for a request), in report order.
using Reports = std::vector<std::tuple<int, std::int64_t, int>>;

// Four windowed clients streaming reads and writes over an HBM2E (32 channels), advanced a DRAM cycle or
// two at a time as the chip's DRAM tier does, with new requests submitted along the way.
Reports run(bool visitOnce, int* callsWithSeveralReleases) {
    MemorySystemOptions o;
    o.visitOnce = visitOnce;
    o.clock = {3, 2}; // 1.5 DRAM cycles per fabric cycle, as HBM2E's 556 ps against 1.2 GHz nearly is
    MemorySystem m(dramPreset("hbm2e"), o);
    Reports r;
    m.onTransactionDone([&](int id, std::int64_t data) { r.emplace_back(id, data, 0); });
    m.onRequestDone([&](int id, std::int64_t data) { r.emplace_back(id, data, 1); });
    for (int c = 0; c < 4; ++c)
        m.setWindow(c, 6 + 2 * c, 20);
    std::uint64_t state = 12345;
    auto next = [&] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return state >> 33;
    };
    std::int64_t fabric = 0;
    *callsWithSeveralReleases = 0;
    for (int step = 0; step < 4000 || m.pending() > 0; ++step) {
        if (step < 4000 && next() % 16 == 0) {
            const int client = static_cast<int>(next() % 4);
            const std::uint64_t base = (next() % 4096) * 4096;
            const std::int64_t bytes = 64 * static_cast<std::int64_t>(1 + next() % 64);
            m.submit(client, next() % 4 == 0, {{base, bytes}}, fabric + 20, 0.5 + double(next() % 4));
        }
        ++fabric;
        const std::size_t before = r.size();
        const std::int64_t from = m.nextEvent();
        m.advanceTo(m.clock().toDram(fabric + 20));
        // Reports of more than one cycle in one call: the order between channels and cycles is put to the
        // test.
        if (r.size() > before + 1 && from + 1 < m.clock().toDram(fabric + 20)) ++*callsWithSeveralReleases;
    }
    return r;
}

} // namespace

TEST(MemorySystem, OneVisitPerChannelReportsAsTheCycleByCycleLoop) {
    int severalOnce = 0, severalLoop = 0;
    const Reports once = run(true, &severalOnce);
    const Reports loop = run(false, &severalLoop);
    ASSERT_GT(loop.size(), 5000u);
    EXPECT_GT(severalLoop, 100);
    EXPECT_EQ(once.size(), loop.size());
    EXPECT_TRUE(once == loop) << "reports differ from the first at "
                              << std::mismatch(once.begin(), once.end(), loop.begin()).first - once.begin();
}
