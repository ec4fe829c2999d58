// The fast path (channels decided in stretches, no SystemC event per transaction) against the per-request
// path (every 64-byte transaction its own request and event): the same completion cycle for every request.
#include <gtest/gtest.h>

#include "mem/MemTestUtil.h"
#include "traces/MemTrace.h"

using namespace steprdu;
using namespace steprdu::memtest;

namespace {

std::vector<MemTrace> smallTraces() {
    std::vector<MemTrace> v;
    for (const char* pattern : {"sequential", "random", "mixed"}) {
        traces::MemTraceGenerator g;
        g.pattern = pattern;
        g.bytes = 256 << 10;
        g.requestBytes = pattern == std::string("sequential") ? 512 : 64;
        g.span = 8 << 20;
        v.push_back(traces::generateMemTrace(g));
    }
    // Requests spread out in time, some reaching an idle controller (refreshes are caught up then), some
    // writes, some spanning several transactions.
    MemTrace spread;
    spread.source = "spread out, mixed sizes";
    std::uint64_t state = 99;
    std::int64_t cycle = 0;
    for (int i = 0; i < 3000; ++i) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        cycle += (state >> 33) % 40;
        MemRequest r;
        r.cycle = cycle;
        r.write = (state >> 20) % 4 == 0;
        r.address = ((state >> 8) % (1 << 16)) * 64;
        r.bytes = 64 * (1 + (state >> 40) % 6);
        spread.requests.push_back(r);
    }
    v.push_back(spread);
    return v;
}

// Requests every few cycles, of one to eight transactions, a third of them writes: more than small queues
// take.
MemTrace denseTrace() {
    MemTrace t;
    t.source = "dense, mixed sizes";
    std::uint64_t state = 7;
    std::int64_t cycle = 0;
    for (int i = 0; i < 4000; ++i) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        cycle += (state >> 33) % 12;
        MemRequest r;
        r.cycle = cycle;
        r.write = (state >> 20) % 3 == 0;
        r.address = ((state >> 8) % (1 << 22)) * 64;
        r.bytes = 64 * (1 + (state >> 40) % 8);
        t.requests.push_back(r);
    }
    return t;
}

void expectSameCompletions(hw::mem::MemTraceOptions o, const std::vector<MemTrace>& traces = smallTraces()) {
    o.completions = true;
    for (const auto& trace : traces) {
        SCOPED_TRACE(trace.source);
        o.fastPath = true;
        auto fast = run(o, trace);
        o.fastPath = false;
        auto slow = run(o, trace);
        EXPECT_EQ(fast["completion_cycles"], slow["completion_cycles"]);
        EXPECT_EQ(fast["dram_cycles"], slow["dram_cycles"]);
        EXPECT_EQ(fast["commands"], slow["commands"]);
        EXPECT_LT(fast["simulator_wakes"].get<std::int64_t>(), slow["simulator_wakes"].get<std::int64_t>());
    }
}

} // namespace

TEST(DramFastPath, SameCompletionCyclesAsPerRequestOnHbm2) {
    expectSameCompletions(options(hw::mem::dramPreset("hbm2")));
}

TEST(DramFastPath, SameCompletionCyclesAsPerRequestOnDdr4ClosedRow) {
    auto o = options(hw::mem::dramPreset("ddr4"));
    o.memory.controller.closedRow = true;
    expectSameCompletions(o);
}

TEST(DramFastPath, SameCompletionCyclesAsPerRequestOnHbm2eWithSmallQueues) {
    auto o = options(hw::mem::dramPreset("hbm2e"));
    o.memory.controller.readQueue = 4;
    o.memory.controller.writeQueue = 4;
    expectSameCompletions(o);
}

// Queues too small for the offered load keep most transactions waiting in the input buffers, where the
// requests' transactions are sent lazily (hw/mem/dram/MemorySystem.h): a transaction sent behind a buffer's
// front must not move the channel's next event back (this once stalled the run).
TEST(DramFastPath, SameCompletionCyclesAsPerRequestOnHbm2WithOverloadedQueues) {
    auto o = options(hw::mem::dramPreset("hbm2"));
    o.memory.controller.readQueue = 4;
    o.memory.controller.writeQueue = 8;
    expectSameCompletions(o, {denseTrace()});
}
