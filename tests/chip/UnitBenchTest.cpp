// PCU, PMU and AGCU alone with ideal inputs, against cycle counts derived by hand from their models
// (hw/units/Pcu.h, hw/units/Pmu.h, hw/units/Agcu.h). Each bench elaborates SystemC, so each runs in a child
// process.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "hw/config/HwConfigLoader.h"
#include "hw/mem/MemoryMap.h"
#include "hw/mem/TensorLayout.h"
#include "hw/units/Agcu.h"
#include "hw/units/Pmu.h"
#include "testbenches/units/UnitBench.h"
#include "util/Error.h"
#include "util/ForkRun.h"

using namespace steprdu;
using namespace steprdu::hw;

namespace {

std::int64_t pcuCycles(const HwConfig& cfg, PcuBench b) {
    return runInChild([&] { return runPcuBench(cfg, b); })["cycles"].get<std::int64_t>();
}

PcuBench matmul(std::int64_t m, std::int64_t k, std::int64_t n, std::int64_t count, int units) {
    PcuBench b;
    b.m = m;
    b.k = k;
    b.n = n;
    b.count = count;
    b.units = units;
    return b;
}

} // namespace

// 16 x 16 array, fill/drain 16 + 16 = 32. A [m,k] x [k,n] product is ceil(m/16) x ceil(n/16) physical tiles
// of k cycles each, shared by the group's PCUs; tiles stream back to back and the last result drains
// after 32.
TEST(PcuSystolic, MatmulTakesThePhysicalTileSchedule) {
    HwConfig cfg = loadHwConfig("step_eval");
    EXPECT_EQ(pcuCycles(cfg, matmul(16, 16, 16, 1, 1)), 16 + 32);
    // 2 x 3 = 6 physical tiles x 64 = 384 per product, 4 products.
    EXPECT_EQ(pcuCycles(cfg, matmul(32, 64, 48, 4, 1)), 4 * 384 + 32);
    // Ragged: ceil(20/16) x ceil(33/16) = 2 x 3 = 6 tiles over 2 PCUs = 3 x 37 = 111 per product.
    EXPECT_EQ(pcuCycles(cfg, matmul(20, 37, 33, 3, 2)), 3 * 111 + 32);
    // One output tile on 4 PCUs: K = 100 splits 4 ways (25 cycles each), then a 2-level tree of 16 cycles
    // each.
    EXPECT_EQ(pcuCycles(cfg, matmul(16, 100, 16, 1, 4)), 25 + 32 + 2 * 16);
    // 3 output tiles on 8 PCUs: K splits 2 ways: ceil(6 / 8) x 32 = 32 cycles, one tree level.
    EXPECT_EQ(pcuCycles(cfg, matmul(48, 64, 16, 2, 8)), 2 * 32 + 32 + 16);
    // 8 PCUs on 64 x 64 x 64: 16 tiles / 8 = 2 x 64 = 128 per product.
    EXPECT_EQ(pcuCycles(cfg, matmul(64, 64, 64, 5, 8)), 5 * 128 + 32);
}

TEST(PcuSystolic, TheArrayShapeIsAParameter) {
    HwConfig cfg = loadHwConfig("step_eval");
    cfg.pcu.rows = 8;
    cfg.pcu.cols = 32;
    // ceil(32/8) x ceil(32/32) = 4 tiles x 16 = 64 per product; fill/drain 8 + 32.
    EXPECT_EQ(pcuCycles(cfg, matmul(32, 16, 32, 2, 1)), 2 * 64 + 40);
}

// 16 lanes, 6 stages, latency 10: E elements of o operations take ceil(E / (16 x g)) x ceil(o / 6) cycles.
TEST(PcuSimd, ElementWiseRunsAtLanesPerCycle) {
    HwConfig cfg = loadHwConfig("step_eval");
    auto simd = [&](const std::string& fn, std::int64_t rows, std::int64_t cols, std::int64_t count,
                    int units) {
        PcuBench b;
        b.function = fn;
        b.m = rows;
        b.n = cols;
        b.count = count;
        b.units = units;
        return runInChild([&] { return runPcuBench(cfg, b); });
    };
    // 16 x 64 = 1024 elements / 16 lanes = 64 cycles per tile: 16 elements per cycle.
    auto add = simd("add", 16, 64, 10, 1);
    EXPECT_EQ(add["cycles"], 10 * 64 + 10);
    EXPECT_EQ(add["busy_cycles"], 10 * 64);
    // Two PCUs double the lanes.
    EXPECT_EQ(simd("mul", 16, 64, 10, 2)["cycles"], 10 * 32 + 10);
    // SiLU is 8 operations per element: two passes through 6 stages.
    EXPECT_EQ(simd("silu", 16, 64, 3, 1)["cycles"], 3 * 128 + 10);
    // A row sum adds the log2(16) = 4 levels of the cross-lane tree to the latency.
    EXPECT_EQ(simd("rowsum", 16, 64, 3, 1)["cycles"], 3 * 64 + 10 + 4);
    // Ragged: 20 x 17 = 340 elements -> ceil(340 / 16) = 22 cycles.
    EXPECT_EQ(simd("add", 20, 17, 1, 1)["cycles"], 22 + 10);
}

// Operators sharing a PCU (pnr `shrink`) take turns: each piece of work starts when the other's booked work
// ends. Two matmuls of 4 one-tile products (16 cycles each) finish after 8 x 16 + 32 instead of 4 x 16 + 32;
// three adds of 5 tiles (64 cycles each) after 15 x 64 + 10.
TEST(PcuShared, OperatorsSharingAPcuTakeTurns) {
    HwConfig cfg = loadHwConfig("step_eval");
    PcuBench b = matmul(16, 16, 16, 4, 1);
    EXPECT_EQ(pcuCycles(cfg, b), 4 * 16 + 32);
    b.sharing = 2;
    EXPECT_EQ(pcuCycles(cfg, b), 8 * 16 + 32);
    PcuBench add;
    add.function = "add";
    add.m = 16;
    add.n = 64;
    add.count = 5;
    add.sharing = 3;
    EXPECT_EQ(pcuCycles(cfg, add), 15 * 64 + 10);
}

// The pipeline works on a tile as it streams in (the local hop adds 1 cycle, the pipeline's latency 10): add
// on 16 x 64 tiles is 64 cycles of work each. Tiles arriving over 100 cycles each bind the run: tile i ends
// with its last bytes at (i + 1) x 100 + 1, so 10 tiles finish at 1001 + 10. Arriving over 40 cycles, the
// work binds: 10 x 64 from the first head at 1, then 10; a unit that took whole tiles before starting would
// take 40 more cycles in the second case and 64 more in the first.
TEST(PcuSimd, WorkOverlapsTheInputsArrival) {
    HwConfig cfg = loadHwConfig("step_eval");
    auto streamed = [&](Cycle arrival) {
        PcuBench b;
        b.function = "add";
        b.m = 16;
        b.n = 64;
        b.count = 10;
        b.arrival = arrival;
        return runInChild([&] { return runPcuBench(cfg, b); });
    };
    // `cycles` counts from the inputs' first arrival (one hop) to the last result entering the output hop.
    EXPECT_EQ(streamed(100)["cycles"], 10 * 100 + 10);
    EXPECT_EQ(streamed(40)["cycles"], 10 * 64 + 10);
    EXPECT_EQ(streamed(40)["busy_cycles"], 10 * 64);
}

// step_eval PMU: 64 B per cycle per port, 16 banks of 16-byte words. A sequential stream moves 4 words per
// cycle from 4 different banks; with a stride of s words they fall into 16 / gcd(s, 16) banks.
TEST(PmuPorts, StreamsAtPortBandwidthAndBankConflictsCostWhatTheyShould) {
    HwConfig cfg = loadHwConfig("step_eval");
    auto stream = [&](std::int64_t stride, bool write) {
        PmuBench b;
        b.bytes = 65536;
        b.strideWords = stride;
        b.count = 2;
        b.write = write;
        return runInChild([&] { return runPmuBench(cfg, b); });
    };
    auto seq = stream(1, false);
    EXPECT_EQ(seq["cycles"], 2 * 65536 / 64);
    EXPECT_DOUBLE_EQ(seq["bytes_per_cycle"].get<double>(), 64.0);
    EXPECT_EQ(stream(1, true)["cycles"], 2048);
    EXPECT_EQ(stream(4, false)["cycles"], 2048);     // 4 distinct banks: still one cycle per 4 words
    EXPECT_EQ(stream(8, false)["cycles"], 2 * 2048); // 2 banks: two cycles per 4 words
    auto worst = stream(16, false);                  // one bank: four cycles per 4 words
    EXPECT_EQ(worst["cycles"], 4 * 2048);
    EXPECT_EQ(worst["bank_conflict_cycles"], 3 * 2048);
    // 256 B/cycle ports with 16 banks of 16 B are as fast as the banks allow.
    cfg.pmu.bandwidth_bytes_per_cycle = 256;
    EXPECT_EQ(stream(1, false)["cycles"], 2 * 65536 / 256);
}

TEST(PmuPorts, AnAllocationLargerThanTheSramIsAnErrorNamingIt) {
    initSimTime();
    HwConfig cfg = loadHwConfig("step_eval");
    cfg.pmu.capacity_bytes = 4096;
    Pmu pmu("pmu", cfg);
    EXPECT_NO_THROW(pmu.checkAllocation("the stage buffer of stream a -> b", 8192, 2, "2 tiles"));
    try {
        pmu.checkAllocation("the stage buffer of stream a -> b", 8193, 2, "2 tiles");
        FAIL() << "expected BadInput";
    } catch (const BadInput& e) {
        EXPECT_EQ(std::string(e.what()),
                  "pmu: PMU overflow: the stage buffer of stream a -> b needs 8193 B (2 tiles), "
                  "capacity 8192 B (2 PMUs of 4096 B)");
    }
}

// A tile's rows are coalesced into 64-byte bursts: whole rows of a row-major tensor are one contiguous range,
// a narrower tile one range per row; a row that straddles a burst boundary costs one more.
TEST(AgcuBursts, ARowMajorTileIssuesTheMinimalNumberOfBursts) {
    step::TensorSpec t;
    t.rows = 64;
    t.cols = 64;
    auto bursts = [&](std::int64_t tile, std::int64_t rows, std::int64_t cols, int eb) {
        step::OffChipAccess a;
        a.tileIndex = tile;
        a.rows = rows;
        a.cols = cols;
        a.elemBytes = eb;
        return mem::burstCount(mem::burstRanges(t, 0, a, 64), 64);
    };
    EXPECT_EQ(bursts(0, 16, 64, 2), 16 * 64 * 2 / 64); // whole rows: 2048 contiguous bytes
    EXPECT_EQ(bursts(3, 16, 64, 4), 16 * 64 * 4 / 64);
    t.cols = 256;
    EXPECT_EQ(bursts(1, 16, 64, 2), 16 * 2); // 128 B per row at a 512 B pitch: 2 bursts per row
    EXPECT_EQ(bursts(0, 16, 24, 2), 16 * 1); // 48 B rows starting on a boundary: 1 burst each
    EXPECT_EQ(bursts(1, 16, 24, 2), 16 * 2); // rows at byte 48: each straddles a boundary
    auto from32 = mem::burstRanges(t, 32, {0, 0, 1, 64, 2, 1, false}, 64); // 128 B from byte 32: 3 bursts
    ASSERT_EQ(from32.size(), 1u);
    EXPECT_EQ(from32[0].address, 0u);
    EXPECT_EQ(from32[0].bytes, 192);
    // 48 B rows at a 96 B pitch: bursts 0, 1-2, 3, 4-5 touch and merge into one range of 6 bursts.
    t.cols = 48;
    auto merged = mem::burstRanges(t, 0, {0, 0, 4, 24, 2, 1, false}, 64);
    ASSERT_EQ(merged.size(), 1u);
    EXPECT_EQ(merged[0].bytes, 384);
    t.cols = 256;
    auto apart = mem::burstRanges(t, 64, {0, 0, 3, 32, 2, 1, false}, 64); // 64 B rows at a 512 B pitch
    ASSERT_EQ(apart.size(), 3u);
    EXPECT_EQ(apart[1].address, 576u);
    EXPECT_EQ(apart[1].bytes, 64);
}

// The tile_major layout: a tensor's blocks are the tile of its first access. A 256 x 512 f32 weight first
// read in 256 x 16 tiles keeps that block for every later access, so a 256 x 16 tile is one contiguous
// 16 KiB range (256 rows x 64 B, where row-major it is 256 pieces at a 2 KiB pitch); a tensor whose first
// tile does not divide it stays row-major; `tiled` is the PCU's tile whatever the access.
TEST(AgcuBursts, TileMajorLayoutFollowsTheFirstAccess) {
    using Block = std::pair<std::int64_t, std::int64_t>;
    HwConfig cfg = loadHwConfig("step_eval");
    cfg.memory.layout = OffChipLayout::TileMajor;
    step::Graph g;
    step::TensorSpec w;
    w.name = "w";
    w.rows = 256;
    w.cols = 512;
    const int wi = g.addTensor(w);
    step::TensorSpec x = w;
    x.name = "x";
    x.rows = 100;
    const int xi = g.addTensor(x);
    MemoryMap map(g, cfg);
    EXPECT_EQ(map.block(wi, w, 256, 16), Block(256, 16));
    EXPECT_EQ(map.block(wi, w, 64, 64), Block(256, 16));
    EXPECT_EQ(map.block(xi, x, 64, 16), Block(0, 0));  // 64 rows of 100
    EXPECT_EQ(map.block(xi, x, 100, 16), Block(0, 0)); // fixed at first
    auto tile = mem::burstRanges(w, 0, {0, 3, 256, 16, 4, 1, false}, 64, 256, 16);
    ASSERT_EQ(tile.size(), 1u);
    EXPECT_EQ(tile[0].address, 3u * 256 * 16 * 4);
    EXPECT_EQ(tile[0].bytes, 16384);
    EXPECT_EQ(mem::burstRanges(w, 0, {0, 3, 256, 16, 4, 1, false}, 64).size(), 256u);
    cfg.memory.layout = OffChipLayout::Tiled;
    MemoryMap pcu(g, cfg);
    EXPECT_EQ(pcu.block(wi, w, 256, 16), Block(cfg.pcu.rows, cfg.pcu.cols));
}

// The tiled layout: a 32 x 32 f32 tensor in 16 x 16 blocks of 1 KiB, blocks row-major. A block-sized tile is
// one contiguous KiB; the whole tensor one range of 4 KiB; an 8 x 8 tile at columns 8-15 of block 0 is eight
// 32 B pieces, each in the second half of its own 64 B row of the block: bursts 0..7, merged into 512 B.
TEST(AgcuBursts, TiledLayoutReadsWholeBlocks) {
    step::TensorSpec t;
    t.rows = t.cols = 32;
    auto ranges = [&](std::int64_t tile, std::int64_t rows, std::int64_t cols) {
        return mem::burstRanges(t, 4096, {0, tile, rows, cols, 4, 1, false}, 64, 16, 16);
    };
    auto block = ranges(1, 16, 16); // rows 0-15, columns 16-31: block 1
    ASSERT_EQ(block.size(), 1u);
    EXPECT_EQ(block[0].address, 4096u + 1024u);
    EXPECT_EQ(block[0].bytes, 1024);
    auto all = ranges(0, 32, 32);
    ASSERT_EQ(all.size(), 1u);
    EXPECT_EQ(all[0].bytes, 4096);
    auto small = ranges(1, 8, 8);
    ASSERT_EQ(small.size(), 1u);
    EXPECT_EQ(small[0].address, 4096u);
    EXPECT_EQ(small[0].bytes, 512);
    auto lower = ranges(2, 16, 16); // rows 16-31, columns 0-15: block 2
    ASSERT_EQ(lower.size(), 1u);
    EXPECT_EQ(lower[0].address, 4096u + 2048u);
}

// burstRanges against the definition, element by element: every byte of the tile marks its bursts, and the
// marked bursts' maximal runs are the ranges. Row-major and blocked tensors whose edge blocks are partial,
// tiles that straddle blocks or fill them, a power-of-two burst and one that is not, an unaligned base.
// splitBursts then cuts the same bursts into even runs, in order.
TEST(AgcuBursts, RangesAreTheTilesBurstsElementByElement) {
    step::TensorSpec t;
    t.rows = 40;
    t.cols = 52;
    struct Case {
        std::int64_t rows, cols;
        int eb, burst, blockRows, blockCols;
        std::int64_t base;
    };
    const Case cases[] = {{8, 13, 2, 64, 0, 0, 0},   {8, 13, 2, 48, 0, 0, 40},   {40, 52, 4, 64, 0, 0, 0},
                          {8, 13, 2, 64, 16, 12, 0}, {8, 26, 4, 48, 16, 12, 8},  {16, 52, 2, 64, 16, 13, 0},
                          {5, 4, 2, 64, 5, 4, 128},  {40, 52, 2, 32, 16, 12, 0}, {8, 4, 2, 32, 16, 48, 0}};
    for (const Case& k : cases) {
        const std::int64_t tiles = (t.rows / k.rows) * (t.cols / k.cols);
        for (std::int64_t tile = 0; tile < tiles; ++tile) {
            const step::OffChipAccess a{0, tile, k.rows, k.cols, k.eb, 1, false};
            const std::int64_t perRow = t.cols / k.cols;
            const std::int64_t r0 = tile / perRow * k.rows, c0 = tile % perRow * k.cols;
            std::set<std::int64_t> marked;
            for (std::int64_t r = r0; r < r0 + k.rows; ++r)
                for (std::int64_t c = c0; c < c0 + k.cols; ++c) {
                    std::int64_t e = r * t.cols + c;
                    if (k.blockRows > 0) {
                        const std::int64_t br = k.blockRows, bc = k.blockCols;
                        const std::int64_t block = r / br * ((t.cols + bc - 1) / bc) + c / bc;
                        e = block * br * bc + r % br * bc + c % bc;
                    }
                    const std::int64_t byte = k.base + e * k.eb;
                    for (std::int64_t b = byte / k.burst; b <= (byte + k.eb - 1) / k.burst; ++b)
                        marked.insert(b);
                }
            std::vector<mem::ByteRange> expected;
            for (std::int64_t b : marked)
                if (!expected.empty() &&
                    std::int64_t(expected.back().address) + expected.back().bytes == b * k.burst)
                    expected.back().bytes += k.burst;
                else
                    expected.push_back({static_cast<std::uint64_t>(b * k.burst), k.burst});
            const auto got = mem::burstRanges(t, k.base, a, k.burst, k.blockRows, k.blockCols);
            ASSERT_EQ(got.size(), expected.size()) << "tile " << tile << " of " << k.rows << " x " << k.cols;
            for (std::size_t i = 0; i < got.size(); ++i) {
                EXPECT_EQ(got[i].address, expected[i].address) << "tile " << tile << " range " << i;
                EXPECT_EQ(got[i].bytes, expected[i].bytes) << "tile " << tile << " range " << i;
            }
            const std::int64_t bursts = mem::burstCount(got, k.burst);
            EXPECT_EQ(bursts, static_cast<std::int64_t>(marked.size()));
            const auto runs = mem::splitBursts(got, k.burst, 3);
            ASSERT_EQ(runs.size(), 3u);
            std::vector<std::int64_t>
                order; // every burst once, in address order, runs 3 / 3 / 3 at most 1 apart
            for (std::size_t p = 0; p < runs.size(); ++p) {
                const std::int64_t n = mem::burstCount(runs[p], k.burst);
                EXPECT_EQ(n, bursts / 3 + (std::int64_t(p) < bursts % 3 ? 1 : 0));
                for (const mem::ByteRange& r : runs[p])
                    for (std::int64_t b = 0; b < r.bytes / k.burst; ++b)
                        order.push_back(std::int64_t(r.address) / k.burst + b);
            }
            EXPECT_EQ(order, std::vector<std::int64_t>(marked.begin(), marked.end()));
        }
    }
}

// A single AGCU reading one long tile from the STeP HBM node (32 channels x 64 B / 2 cycles = 16 bursts per
// cycle): with W bursts in flight and a round trip of L = 2 x TLN + latency + start-up + 3 = 21 cycles it
// sustains W / L bursts per cycle, until the issue rate (par) or the memory caps it.
TEST(AgcuWindow, ThroughputFollowsWindowOverLatencyUntilTheMemoryLimit) {
    HwConfig cfg = loadHwConfig("step_eval");
    cfg.agcu.bursts_per_cycle = 64;
    AgcuBench b;
    b.rows = 512;
    b.cols = 1024; // 512 KiB of whole rows: 8192 bursts
    b.elemBytes = 1;
    b.parDispatch = 16; // the node's 16 requests per cycle, so that a packet does not queue at the channels
    const double L = 21;
    for (int w : {4, 8, 32, 128, 1024}) {
        cfg.agcu.max_outstanding = w;
        auto r = runInChild([&] { return runAgcuBench(cfg, b); });
        EXPECT_EQ(r["round_trip_cycles"], L);
        EXPECT_EQ(r["bursts"], 8192);
        double bursts = r["bytes_per_cycle"].get<double>() / 64, expected = std::min(w / L, 16.0);
        EXPECT_NEAR(bursts, expected, 0.05 * expected) << "window " << w;
    }
}

namespace {

// A memory that answers its k-th request `learn[k]` cycles after it comes and says the response is back
// `back[k]` cycles after the request's issue cycle; it records each request's issue cycle.
struct ScriptedMemory : sc_core::sc_module, OffChipMemory {
    SC_HAS_PROCESS(ScriptedMemory);
    ScriptedMemory(sc_core::sc_module_name n, std::vector<Cycle> learn, std::vector<Cycle> back,
                   std::shared_ptr<std::vector<Cycle>> issues)
        : sc_module(n), learn_(std::move(learn)), back_(std::move(back)), issues_(std::move(issues)) {
        SC_METHOD(answer);
        sensitive << answers_;
        dont_initialize();
    }
    void submit(int, int, bool, Cycle issue, std::vector<ByteRange>, int, int,
                std::function<void(Cycle)> done) override {
        const std::size_t k = issues_->size();
        issues_->push_back(issue);
        pending_.push_back({now() + learn_.at(k), issue + back_.at(k), std::move(done)});
        answers_.notify(cycles(learn_.at(k)));
    }
    void answer() {
        for (auto& p : pending_)
            if (p.done && p.learnAt <= now()) std::exchange(p.done, nullptr)(p.back);
    }
    void setWindow(int, int, int, int) override {}
    double peakBytesPerCycle() const override { return 64; }
    void reportStats(StatsRegistry&, Cycle) const override {}
    std::int64_t events() const override { return 0; }
    std::string path() const override { return name(); }

    struct Pending {
        Cycle learnAt, back;
        std::function<void(Cycle)> done;
    };
    std::vector<Cycle> learn_, back_;
    std::shared_ptr<std::vector<Cycle>> issues_;
    std::vector<Pending> pending_;
    sc_core::sc_event_queue answers_;
};

} // namespace

// Tiles in flight free in the order their responses are back, not the order they are answered. With two in
// flight, tile 0 is answered a cycle after it is sent but back late (100 cycles after its issue), tile 1 is
// answered 10 cycles after it is sent, while the AGCU already waits for tile 0, and back early (30). Both
// leave the operator at cycle c and reach memory at c + TLN (20); tile 1 is back at the AGCU at
// c + 20 + 30 + 20 = c + 70, which frees the slot tile 2 takes: it reaches memory at c + 90 (not at c + 160,
// when tile 0 is back).
TEST(AgcuWindow, ATileSlotFreesWhenTheEarliestResponseIsBackWhateverTheOrderOfAnswers) {
    HwConfig cfg = loadHwConfig("sn40l");
    ASSERT_EQ(cfg.agcu.tln_latency_cycles, 20);
    cfg.agcu.tiles_in_flight = 2;
    AgcuBench b;
    b.tiles = 3;
    auto r = runInChild([&] {
        initSimTime();
        auto issues = std::make_shared<std::vector<Cycle>>();
        std::vector<std::unique_ptr<OffChipMemory>> tiers;
        tiers.push_back(std::make_unique<ScriptedMemory>("hbm", std::vector<Cycle>{1, 10, 1},
                                                         std::vector<Cycle>{100, 30, 10}, issues));
        tiers.push_back(nullptr);
        runAgcuBench(cfg, b, std::move(tiers));
        return nlohmann::json(*issues);
    });
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[1].get<Cycle>() - r[0].get<Cycle>(), 0);
    EXPECT_EQ(r[2].get<Cycle>() - r[0].get<Cycle>(), 70);
}
