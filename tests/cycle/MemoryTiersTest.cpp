// The memory map on the chip: tensors of a class placed in DDR instead of HBM (memory.place.<class>) are
// read and written there, and the run slows down as the tiers' bandwidths say. Measured figures are in the
// comments; the bounds are physics (nothing beats a tier's peak) and the hand-derived ratios.
#include <gtest/gtest.h>

#include "testbenches/Runner.h"

using namespace steprdu;

namespace {

nlohmann::json run(const std::string& testbench, const std::vector<std::string>& knobs,
                   const std::vector<std::string>& sets, const std::string& hw) {
    tb::RunRequest r;
    r.testbench = testbench;
    r.knobs = knobs;
    r.backend = "cycle";
    r.hw = hw;
    r.sets = sets;
    return tb::runTestbench(r);
}

double tierBytes(const nlohmann::json& r, const char* tier) {
    const auto& m = r["memory"][tier];
    return m["bytes_read"].get<double>() + m["bytes_written"].get<double>();
}

double peak(const nlohmann::json& r, const char* tier) {
    return r["memory"][tier]["peak_bytes_per_cycle"].get<double>();
}

} // namespace

// tiny: one HBM2 stack (256 GB/s, 213 B per 1.2 GHz fabric cycle) and one DDR4-2400 channel (19.2 GB/s,
// 16 B per fabric cycle). 16 MiB copied between tiers goes at the DDR side's rate: at most its peak, and
// within 10% of it (a sequential stream keeps about 95% of a DDR4 channel busy). Measured: 15.2 B/cycle
// both ways. Within one tier a copy reads and writes the same channels: at most half that tier's peak each
// way.
TEST(CycleMemoryTiers, CopyBetweenTiersMovesAtTheSlowerTiersBandwidth) {
    const std::int64_t bytes = 16 << 20;
    const std::vector<std::string> knobs = {"bytes=" + std::to_string(bytes), "streams=8", "tile_rows=64",
                                            "tile_cols=256"};
    const std::vector<std::string> sets = {"memory.place.weights=ddr"};
    for (auto [src, dst] : {std::pair{"weights", "activations"}, std::pair{"activations", "weights"}}) {
        SCOPED_TRACE(std::string(src) + " -> " + dst);
        std::vector<std::string> k = knobs;
        k.push_back(std::string("src_class=") + src);
        k.push_back(std::string("dst_class=") + dst);
        auto r = run("copy", k, sets, "tiny");
        EXPECT_EQ(tierBytes(r, "ddr"), bytes);
        EXPECT_EQ(tierBytes(r, "hbm"), bytes);
        const double rate = bytes / r["cycles"].get<double>();
        EXPECT_LE(rate, peak(r, "ddr"));
        EXPECT_NEAR(rate, peak(r, "ddr"), 0.10 * peak(r, "ddr"));
    }
    std::vector<std::string> k = knobs;
    k.insert(k.end(), {"src_class=weights", "dst_class=weights"});
    auto r = run("copy", k, sets, "tiny");
    EXPECT_EQ(tierBytes(r, "ddr"), 2 * bytes);
    EXPECT_LE(bytes / r["cycles"].get<double>(), peak(r, "ddr") / 2);
}

// A weight-bound MoE layer (16 experts, top-4, 32 tokens: 48 MiB of weights, some read twice, a few KiB
// of activations) on the sn40l chip with an HBM2 stack and a DDR4 channel as its tiers (so the chip's AGCUs
// can saturate the HBM side) and the ideal network of STeP 4.5 (so the first placement's mesh congestion
// does not hide the memory). Moving the weights to DDR slows it down by about the tiers' bandwidth ratio,
// 256 / 19.2 = 13.3: measured 11.1x (the HBM run reaches 78% of its peak, the DDR run 94%), never more.
TEST(CycleMemoryTiers, MoeWithWeightsInDdrSlowsByTheBandwidthRatio) {
    const std::vector<std::string> knobs = {"experts=16", "topk=4",   "hidden=1024",
                                            "inter=512",  "batch=32", "tile_f=512"};
    std::vector<std::string> sets = {"memory.hbm=hbm2", "memory.ddr=ddr4", "rdn.topology=ideal"};
    auto hbm = run("moe", knobs, sets, "sn40l");
    sets.push_back("memory.place.weights=ddr");
    auto ddr = run("moe", knobs, sets, "sn40l");
    // Every expert's three matrices at least once; an expert with more than 16 tokens reads them again.
    const double weights = tierBytes(ddr, "ddr");
    EXPECT_GE(weights, 16.0 * 3 * 1024 * 512 * 2);
    EXPECT_GE(weights, 0.95 * ddr["off_chip_bytes"].get<double>());
    EXPECT_EQ(tierBytes(hbm, "ddr"), 0);
    EXPECT_EQ(hbm["off_chip_bytes"], ddr["off_chip_bytes"]);
    const double ratio = peak(hbm, "hbm") / peak(hbm, "ddr");
    EXPECT_NEAR(ratio, 256 / 19.2, 0.01);
    const double slowdown = ddr["cycles"].get<double>() / hbm["cycles"].get<double>();
    EXPECT_GE(slowdown, 0.75 * ratio);
    EXPECT_LE(slowdown, 1.02 * ratio);
    EXPECT_GE(ddr["cycles"].get<double>(), weights / peak(ddr, "ddr"));
    EXPECT_GE(weights / ddr["cycles"].get<double>(), 0.85 * peak(ddr, "ddr"));
}

// The chip's off-chip peak is its HBM tier's, not the published node's `hbm` section: on sn40l with one HBM2
// stack (memory.hbm=hbm2) that is 8 channels x 2 pseudo-channels x 64 B per 4 DRAM cycles of 1 ns, 256 B/ns
// or 213.3 B per 1.2 GHz fabric cycle, where the hbm section says 1536. Lowering's rate model (pnr.json's
// rate_model_cycles: at least the off-chip bytes at that peak) and the run's utilisation both use it.
TEST(CycleMemoryTiers, OffChipPeakIsTheHbmTiersOwn) {
    const auto r = run("swiglu", {}, {"memory.hbm=hbm2"}, "sn40l");
    const double tierPeak = 256.0 / 1.2;
    EXPECT_NEAR(r["peak_offchip_bytes_per_cycle"].get<double>(), tierPeak, 1e-9);
    EXPECT_NEAR(peak(r, "hbm"), tierPeak, 1e-9);
    const double bytes = r["off_chip_bytes"].get<double>(), cycles = r["cycles"].get<double>();
    EXPECT_NEAR(r["off_chip_bw_utilization"].get<double>(), bytes / cycles / tierPeak, 1e-12);
    EXPECT_LE(r["off_chip_bw_utilization"].get<double>(), 1.0);
    EXPECT_GE(r["pnr"]["rate_model_cycles"].get<double>(), bytes / tierPeak * (1 - 1e-12));
}
