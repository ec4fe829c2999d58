// Posted writes (memory.posted_writes): a write is done for its client when its channel's write queue takes
// it, not when the write drain gets to it. Cycles by hand from hbm2's timing (hw/mem/dram/DramSpec.cpp):
// nRCDWR 7, nCWL 2, nBL 4; DRAM and fabric clocks 1:1; refresh off.
#include <gtest/gtest.h>

#include <map>

#include "hw/mem/dram/DramSpec.h"
#include "hw/mem/dram/MemorySystem.h"

using namespace steprdu::hw::mem;

namespace {

MemorySystemOptions options(bool posted) {
    MemorySystemOptions o;
    o.controller.refresh = false;
    o.controller.postedWrites = posted;
    return o;
}

} // namespace

TEST(PostedWrites, AWriteToAnIdleChannelIsDoneWhenQueued) {
    const DramSpec& spec = dramPreset("hbm2");
    for (bool posted : {true, false}) {
        SCOPED_TRACE(posted ? "posted" : "not posted");
        MemorySystem m(spec, options(posted));
        std::map<int, std::int64_t> done; // request -> the DRAM cycle it completed
        m.onRequestDone([&](int id, std::int64_t at) { done[id] = at; });
        const int w = m.submit(0, true, {{0, 64}}, 0, 0);
        m.advanceTo(kNeverCycle);
        // Queued at 0; unposted: ACT at 0, WR at nRCDWR = 7, data written by 7 + nCWL + nBL = 13.
        EXPECT_EQ(done.at(w), posted ? 0 : 13);
        EXPECT_EQ(m.lastData(), 13); // the data moves at the same cycle either way
        EXPECT_EQ(m.bytesWritten(), 64);
    }
}

TEST(PostedWrites, AWriteBehindAStreamOfReadsDoesNotWaitForTheDrain) {
    // A windowed client keeps reads queued (8 in flight, a slot back as soon as its data is), so the
    // controller never runs out of reads and never reaches the write watermark with one write queued: an
    // unposted write waits for the last read, a posted one is done the cycle its queue takes it.
    const DramSpec& spec = dramPreset("hbm2");
    for (bool posted : {true, false}) {
        SCOPED_TRACE(posted ? "posted" : "not posted");
        MemorySystem m(spec, options(posted));
        m.setWindow(0, 8, 0);
        std::map<int, std::int64_t> done; // request -> the DRAM cycle it completed
        m.onRequestDone([&](int id, std::int64_t at) { done[id] = at; });
        // 4096 reads on channel 0, then a write to it.
        const std::int64_t tx = spec.transactionBytes;
        std::vector<ByteRange> reads;
        std::uint64_t a = 0;
        for (; reads.size() < 4096; a += tx)
            if (m.mapping().locate(a).channel == 0) reads.push_back({a, tx});
        while (m.mapping().locate(a).channel != 0)
            a += tx;
        const int rd = m.submit(0, false, reads, 0, 0);
        m.advanceTo(100);
        const int w = m.submit(1, true, {{a, tx}}, 100, 0);
        m.advanceTo(kNeverCycle);
        const std::int64_t readsDone = done.at(rd);
        ASSERT_GE(readsDone, 4096 * spec.t.nBL / spec.ranks); // a bus per pseudo-channel: nBL per read
        if (posted)
            EXPECT_EQ(done.at(w), 100);
        else
            EXPECT_GT(done.at(w), readsDone);
    }
}
