// A DRAM tier alone against numbers derived by hand from its preset's timing (hw/mem/dram/DramSpec.cpp).
// hbm2: nBL 4, nCL 7, nRCD 7, nRP 7, nRAS 17, nRC 19, nRTP 3, nRRD 2/3, nFAW 15, nRFC 160, nREFI 3900;
//       16 pseudo-channels of 16 B per 1 ns cycle: 256 B/cycle.
// ddr4: nBL 4, nCL 16, nRCD 16, nRP 16, nRAS 39, nRC 55, nRTP 9, nRRD 4/6, nFAW 26, nRFC 433, nREFI 9364;
//       one 64-bit channel, 16 B per 0.833 ns cycle.
// hbm2e: nRRD 8/8, nFAW 27, 64 pseudo-channels of 16 B per 0.556 ns cycle: 1024 B/cycle.
#include <random>

#include <gtest/gtest.h>

#include "mem/MemTestUtil.h"
#include "traces/MemTrace.h"

using namespace steprdu;
using namespace steprdu::memtest;

namespace {

const DramSpec& preset(const char* name) {
    return hw::mem::dramPreset(name);
}

MemTrace sequential(std::int64_t bytes) {
    traces::MemTraceGenerator g;
    g.bytes = bytes;
    return traces::generateMemTrace(g);
}

MemTrace randomReads(std::int64_t count, std::uint64_t seed) {
    traces::MemTraceGenerator g;
    g.pattern = "random";
    g.bytes = count * 64;
    g.seed = seed;
    return traces::generateMemTrace(g);
}

double bytesPerCycle(const nlohmann::json& r) {
    return r["bytes_per_cycle"].get<double>();
}

} // namespace

// An idle channel: ACT at 0, RD at nRCD, the 64 bytes back nCL + nBL later. A later read of the open row
// skips the ACT: nCL + nBL.
TEST(DramTiming, IdleReadLatencyIsRcdPlusClPlusBurst) {
    for (const char* name : {"hbm2", "ddr4"}) {
        SCOPED_TRACE(name);
        DramSpec s = preset(name);
        const auto& t = s.t;
        MemTrace trace;
        trace.requests = {read(0)};
        auto r = run(options(s), trace);
        EXPECT_EQ(r["dram_cycles"].get<std::int64_t>(), t.nRCD + t.nCL + t.nBL);
        EXPECT_EQ(r["read_latency_mean_cycles"].get<double>(), t.nRCD + t.nCL + t.nBL);
        EXPECT_EQ(r["row_misses"].get<int>(), 1);

        trace.requests.push_back(read(0, 64, 1000));
        r = run(options(s), trace);
        EXPECT_EQ(r["dram_cycles"].get<std::int64_t>(), 1000 + t.nCL + t.nBL);
        EXPECT_EQ(r["read_latency_p99_cycles"].get<std::int64_t>(), t.nRCD + t.nCL + t.nBL);
        EXPECT_EQ(r["row_hits"].get<int>(), 1);
    }
    EXPECT_EQ(preset("hbm2").t.nRCD + preset("hbm2").t.nCL + preset("hbm2").t.nBL, 18);
    EXPECT_EQ(preset("ddr4").t.nRCD + preset("ddr4").t.nCL + preset("ddr4").t.nBL, 36);
}

// A write alone: ACT, WR nRCDWR later, its data nCWL + nBL after that (hbm2: 7 + 2 + 4 = 13). A write that
// comes to an idle controller later, to the open row, is written at once: 1000 + 2 + 4.
TEST(DramTiming, IdleWritesAreWrittenAtOnce) {
    const DramSpec& s = preset("hbm2");
    MemTrace trace;
    trace.requests = {read(0), read(0, 64, 1000)};
    for (auto& r : trace.requests)
        r.write = true;
    auto o = options(s);
    o.completions = true;
    o.memory.controller.postedWrites = false; // complete when written
    auto r = run(o, trace);
    EXPECT_EQ(r["completion_cycles"],
              nlohmann::json({s.t.nRCDWR + s.t.nCWL + s.t.nBL, 1000 + s.t.nCWL + s.t.nBL}));
    EXPECT_EQ(r["bytes_written"].get<int>(), 128);
    // Posted (the default): done the cycle the write queue takes them, written as before.
    o.memory.controller.postedWrites = true;
    auto posted = run(o, trace);
    EXPECT_EQ(posted["completion_cycles"], nlohmann::json({0, 1000}));
    EXPECT_EQ(posted["dram_cycles"], r["dram_cycles"]);
}

// A stream walks whole rows: only refresh (nRFC / nREFI, about 4%) and the row switches between them cost
// bandwidth, so at least 90% of peak, and never more than peak.
TEST(DramTiming, SequentialReadsReachNinetyPercentOfPeak) {
    for (const char* name : {"hbm2", "ddr4"}) {
        SCOPED_TRACE(name);
        auto r = run(options(preset(name)), sequential(4 << 20));
        EXPECT_GE(r["bandwidth_fraction"].get<double>(), 0.90);
        EXPECT_LE(r["bandwidth_fraction"].get<double>(), 1.0);
        EXPECT_EQ(r["bytes_read"].get<std::int64_t>(), 4 << 20);
    }
    EXPECT_DOUBLE_EQ(preset("hbm2").peakBytesPerCycle(), 256.0);
    EXPECT_NEAR(preset("hbm2").peakGBps(), 256.0, 1e-9);
    EXPECT_NEAR(preset("ddr4").peakGBps(), 16 / 0.833, 1e-9);
}

// Random rows in two banks of one pseudo-channel: each bank opens a row per access, and a bank's row cycle
// is max(nRC, nRAS + nRP) = max(19, 17 + 7) = 24 (ACT, PRE at nRAS, ACT nRP later): 2 x 64 B per 24 cycles.
TEST(DramTiming, RandomReadsOnTwoBanksAreRowCycleBound) {
    DramSpec s = preset("hbm2");
    std::mt19937_64 rng(7);
    MemTrace trace;
    for (int i = 0; i < 2000; ++i)
        trace.requests.push_back(read(address(s, 0, 0, i % 2, 0, static_cast<int>(rng() % s.rows))));
    auto r = run(options(s), trace);
    const double predicted = 2.0 * 64 / std::max(s.t.nRC, s.t.nRAS + s.t.nRP);
    EXPECT_NEAR(bytesPerCycle(r), predicted, 0.10 * predicted) << r.dump();
    EXPECT_LE(bytesPerCycle(r), predicted * 1.0001);
}

// DDR4, random rows over all 16 banks: each access needs PRE, ACT, RD (3 command cycles) and 4 data cycles;
// row cycles spread over 16 banks (55 / 16 = 3.4), ACTs at least nRRD_S = 4 apart, but four ACTs per
// nFAW = 26 cycles: 6.5 cycles per access, the tightest, so 64 / 6.5 = 9.85 B per cycle.
TEST(DramTiming, RandomReadsOnDdr4AreFourActivateWindowBound) {
    const DramSpec& s = preset("ddr4");
    auto r = run(options(s), randomReads(20000, 3));
    const auto& t = s.t;
    const double perAccess =
        std::max({t.nFAW / 4.0, double(t.nRRDS), double(t.nRC) / 16, 3.0, double(t.nBL)});
    EXPECT_DOUBLE_EQ(perAccess, 6.5);
    EXPECT_NEAR(bytesPerCycle(r), 64 / perAccess, 0.10 * 64 / perAccess) << r.dump();
    EXPECT_LE(bytesPerCycle(r), 64 / perAccess * 1.0001);
}

// HBM2E: nRRD_S = nRRD_L = 8 and nFAW = 27 < 4 x 8, so a pseudo-channel activates every 8 cycles at most:
// 64 B per 8 cycles on each of its 64 pseudo-channels, 512 B per cycle, half the peak, less the refresh
// share nRFC / nREFI = 630 / 7020 (no ACT while a pseudo-channel refreshes). A row cycle of 87 cycles
// keeps 11 banks of 16 busy, so the queue must hold requests for the other five: 64 entries per channel
// (the default 32 leaves it about 15% short of the bound).
TEST(DramTiming, RandomReadsOnHbm2eAreActivateToActivateBound) {
    const DramSpec& s = preset("hbm2e");
    auto o = options(s);
    o.memory.controller.readQueue = 64;
    auto r = run(o, randomReads(200000, 5));
    const auto& t = s.t;
    const double perAccess = std::max(
        {t.nFAW / 4.0, double(t.nRRDS), double(t.nRC) / s.banksPerRank(), double(t.nBL), 3.0 / s.ranks});
    EXPECT_DOUBLE_EQ(perAccess, 8.0);
    const double predicted = s.channels * s.ranks * 64 / perAccess * (1 - double(t.nRFC) / t.nREFI);
    EXPECT_NEAR(bytesPerCycle(r), predicted, 0.10 * predicted) << r.dump();
    EXPECT_LE(bytesPerCycle(r), s.channels * s.ranks * 64 / perAccess);
}

// HBM2: the two pseudo-channels of a channel share its command bus. A random access needs PRE, ACT and RD,
// so a channel completes one per 3 cycles (its data buses could take 2 per 4; nFAW allows 4 per 15 per
// pseudo-channel): 8 x 64 / 3 = 170.7 B per cycle, 67% of peak.
TEST(DramTiming, RandomReadsOnHbm2AreCommandBusBound) {
    const DramSpec& s = preset("hbm2");
    auto r = run(options(s), randomReads(100000, 11));
    const double predicted = s.channels * 64 / 3.0;
    EXPECT_NEAR(bytesPerCycle(r), predicted, 0.10 * predicted) << r.dump();
    EXPECT_LE(bytesPerCycle(r), predicted * 1.0001);
}

// One bank, rows A B A B ..., one read in the queue at a time (so FR-FCFS cannot group the hits): every
// access is PRE, ACT, RD. ACT k at k x R with R = max(nRC, nRAS + nRP), its data nRCD + nCL + nBL later.
TEST(DramTiming, TwoRowPingPongCostsARowCyclePerAccess) {
    for (const char* name : {"hbm2", "ddr4"}) {
        SCOPED_TRACE(name);
        DramSpec s = preset(name);
        s.mapping = hw::mem::MappingScheme::RoBaRaCoCh;
        MemTrace trace;
        const int n = 100;
        for (int i = 0; i < n; ++i)
            trace.requests.push_back(read(address(s, 0, 0, 0, 0, 100 + i % 2)));
        auto o = options(s);
        o.memory.controller.readQueue = 1;
        auto r = run(o, trace);
        const auto& t = s.t;
        const int rowCycle = std::max(t.nRC, t.nRAS + t.nRP);
        EXPECT_EQ(r["dram_cycles"].get<std::int64_t>(), (n - 1) * rowCycle + t.nRCD + t.nCL + t.nBL);
        EXPECT_EQ(r["row_conflicts"].get<int>(), n - 1);
    }
    EXPECT_EQ(std::max(preset("hbm2").t.nRC, preset("hbm2").t.nRAS + preset("hbm2").t.nRP), 24);
    EXPECT_EQ(std::max(preset("ddr4").t.nRC, preset("ddr4").t.nRAS + preset("ddr4").t.nRP), 55);
}

// Every pseudo-channel (rank) is refreshed once per nREFI for nRFC: 160 / 3900 = 4.1% of the time (hbm2),
// 433 / 9364 = 4.6% (ddr4). A stream loses about that much bandwidth to it.
TEST(DramTiming, RefreshTakesRfcOverRefiOfTheTime) {
    for (const char* name : {"hbm2", "ddr4"}) {
        SCOPED_TRACE(name);
        const DramSpec& s = preset(name);
        const double share = double(s.t.nRFC) / s.t.nREFI;
        auto trace = sequential(name == std::string("hbm2") ? 16 << 20 : 4 << 20);
        auto with = run(options(s), trace);
        auto o = options(s);
        o.memory.controller.refresh = false;
        auto without = run(o, trace);
        EXPECT_NEAR(with["refresh_fraction"].get<double>(), share, 0.15 * share);
        EXPECT_EQ(without["refreshes"].get<int>(), 0);
        const double lost = 1 - bytesPerCycle(with) / bytesPerCycle(without);
        EXPECT_NEAR(lost, share, 0.3 * share) << with.dump() << without.dump();
    }
}

// Reads to alternating rows of one bank, each arriving after the last is done. Open row: the next finds
// the other row open, so PRE, ACT, RD: nRP + nRCD + nCL + nBL = 16 + 16 + 16 + 4 = 52 (ddr4). Closed row:
// the bank was closed behind the last read, so ACT, RD: 36.
TEST(DramTiming, ClosedRowPolicyTurnsConflictsIntoMisses) {
    DramSpec s = preset("ddr4");
    s.mapping = hw::mem::MappingScheme::RoBaRaCoCh;
    MemTrace trace;
    const int n = 20;
    for (int i = 0; i < n; ++i)
        trace.requests.push_back(read(address(s, 0, 0, 0, 0, i % 2), 64, 200 * i));
    const auto& t = s.t;
    auto open = run(options(s), trace);
    EXPECT_EQ(open["row_conflicts"].get<int>(), n - 1);
    EXPECT_DOUBLE_EQ(open["read_latency_mean_cycles"].get<double>(),
                     (36.0 + (n - 1) * (t.nRP + t.nRCD + t.nCL + t.nBL)) / n);
    auto o = options(s);
    o.memory.controller.closedRow = true;
    auto closed = run(o, trace);
    EXPECT_EQ(closed["row_conflicts"].get<int>(), 0);
    EXPECT_EQ(closed["row_misses"].get<int>(), n);
    EXPECT_DOUBLE_EQ(closed["read_latency_mean_cycles"].get<double>(), t.nRCD + t.nCL + t.nBL);
}
