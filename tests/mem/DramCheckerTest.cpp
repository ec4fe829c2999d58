// The timing checker: it catches a violation of each kind of rule, and a long random mixed read/write run of
// every preset's controller has none.
#include <gtest/gtest.h>

#include "hw/mem/dram/DramChecker.h"
#include "mem/MemTestUtil.h"
#include "traces/MemTrace.h"

using namespace steprdu;
using namespace steprdu::memtest;
using C = hw::mem::DramCommand;

namespace {

std::int64_t violations(const std::vector<std::tuple<C, int, int, int, std::int64_t>>& commands,
                        const char* preset = "hbm2") {
    hw::mem::DramChecker k(hw::mem::dramPreset(preset));
    for (auto [c, group, bank, row, t] : commands)
        k.check(c, 0, group, bank, row, t);
    return k.violationCount();
}

} // namespace

// hbm2: nRCD 7, nRAS 17, nRP 7, nRRD_S 2, nRRD_L 3, nFAW 15. ddr4: nRCD 16, nRRD_L 6, nBL 4, nCCD_L 6.
TEST(DramChecker, CatchesEachKindOfViolation) {
    EXPECT_EQ(violations({{C::Act, 0, 0, 5, 0}, {C::Rd, 0, 0, 5, 7}}), 0);
    EXPECT_EQ(violations({{C::Act, 0, 0, 5, 0}, {C::Rd, 0, 0, 5, 6}}), 1);    // tRCD
    EXPECT_EQ(violations({{C::Act, 0, 0, 5, 0}, {C::Rd, 0, 0, 6, 7}}), 1);    // wrong row
    EXPECT_EQ(violations({{C::Act, 0, 0, 5, 0}, {C::Pre, 0, 0, -1, 16}}), 1); // tRAS
    EXPECT_EQ(violations({{C::Act, 0, 0, 5, 0}, {C::Pre, 0, 0, -1, 17}, {C::Act, 0, 0, 6, 23}}),
              1);                                                            // tRP
    EXPECT_EQ(violations({{C::Act, 0, 0, 5, 0}, {C::Act, 0, 1, 5, 2}}), 1);  // tRRD_L
    EXPECT_EQ(violations({{C::Act, 0, 0, 5, 0}, {C::Act, 1, 0, 5, 1}}), 1);  // tRRD_S
    EXPECT_EQ(violations({{C::Act, 0, 0, 5, 0}, {C::Act, 0, 0, 6, 40}}), 1); // row open
    EXPECT_EQ(violations({{C::Act, 0, 0, 1, 0},
                          {C::Act, 1, 0, 1, 2},
                          {C::Act, 2, 0, 1, 4},
                          {C::Act, 3, 0, 1, 6},
                          {C::Act, 0, 1, 1, 14}}),
              1); // tFAW: the fifth ACT 14 cycles after the first
    // ddr4 reads in one bank group nCCD_L = 6 apart, in another group nBL = 4 apart.
    EXPECT_EQ(
        violations({{C::Act, 0, 0, 5, 0}, {C::Act, 0, 1, 5, 6}, {C::Rd, 0, 0, 5, 22}, {C::Rd, 0, 1, 5, 28}},
                   "ddr4"),
        0);
    EXPECT_EQ(
        violations({{C::Act, 0, 0, 5, 0}, {C::Act, 0, 1, 5, 6}, {C::Rd, 0, 0, 5, 22}, {C::Rd, 0, 1, 5, 27}},
                   "ddr4"),
        1);
    EXPECT_EQ(
        violations({{C::Act, 0, 0, 5, 0}, {C::Act, 1, 0, 5, 4}, {C::Rd, 0, 0, 5, 22}, {C::Rd, 1, 0, 5, 26}},
                   "ddr4"),
        0);
    EXPECT_EQ(violations({{C::Act, 0, 0, 5, 0}, {C::Act, 1, 0, 5, 0}}), 2); // one command per cycle
}

// Reads and writes to random addresses, a third of them writes, through FR-FCFS with write drains and
// refreshes: every command of every channel is checked.
TEST(DramChecker, ALongRandomMixedRunHasNoViolations) {
    for (const char* name : {"hbm2", "ddr4", "hbm2e", "ddr5"}) {
        SCOPED_TRACE(name);
        traces::MemTraceGenerator g;
        g.pattern = "mixed";
        g.bytes = 300000 * 64;
        g.requestBytes = 128;
        g.span = 64 << 20; // enough locality for row hits among the conflicts
        g.writeFraction = 0.33;
        g.seed = 21;
        auto o = options(hw::mem::dramPreset(name));
        o.memory.checkTiming = true;
        auto r = run(o, traces::generateMemTrace(g));
        EXPECT_EQ(r["timing_violations"].get<std::int64_t>(), 0) << r["timing_violation_examples"].dump();
        EXPECT_EQ(r["timing_checked_commands"].get<std::int64_t>(), r["commands"].get<std::int64_t>());
        EXPECT_GT(r["row_hits"].get<std::int64_t>(), 0);
        EXPECT_GT(r["row_conflicts"].get<std::int64_t>(), 0);
        EXPECT_GT(r["refreshes"].get<std::int64_t>(), 0);
        EXPECT_EQ(r["bytes_read"].get<std::int64_t>() + r["bytes_written"].get<std::int64_t>(), g.bytes);
    }
}

// The closed-row policy closes each row after its last queued access: also clean.
TEST(DramChecker, ClosedRowPolicyIsCleanToo) {
    traces::MemTraceGenerator g;
    g.pattern = "mixed";
    g.bytes = 50000 * 64;
    g.seed = 4;
    auto o = options(hw::mem::dramPreset("ddr4"));
    o.memory.checkTiming = true;
    o.memory.controller.closedRow = true;
    auto r = run(o, traces::generateMemTrace(g));
    EXPECT_EQ(r["timing_violations"].get<std::int64_t>(), 0) << r["timing_violation_examples"].dump();
    EXPECT_GT(r["commands"].get<std::int64_t>(), 0);
}
