// The paper's workloads on the cycle backend: they run end to end, move exactly the roofline's off-chip
// bytes, and in functional mode leave the interpreter's results in memory (the scoreboard). Each cycle-level
// run is its own process (util/ForkRun.h).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "SharedData.h"
#include "tests/CliRun.h"

#include "testbenches/Runner.h"

using namespace steprdu;

namespace {

nlohmann::json run(const std::string& testbench, const std::vector<std::string>& knobs,
                   const std::string& backend, const std::string& hw, bool functional = false,
                   const std::vector<std::string>& sets = {}) {
    tb::RunRequest r;
    r.testbench = testbench;
    r.knobs = knobs;
    r.backend = backend;
    r.hw = hw;
    r.functional = functional;
    r.sets = sets;
    return tb::runTestbench(r);
}

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        mx += x[i] / x.size();
        my += y[i] / y.size();
    }
    double cov = 0, vx = 0, vy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        cov += (x[i] - mx) * (y[i] - my);
        vx += (x[i] - mx) * (x[i] - mx);
        vy += (y[i] - my) * (y[i] - my);
    }
    return cov / std::sqrt(vx * vy);
}

// The cycle run beside the roofline run of the same graph: equal off-chip bytes, and no faster than the
// preset's peaks allow: its off-chip bytes at the peak bandwidth, its FLOPs on every PCU of the chip.
void expectSameTraffic(const nlohmann::json& cycle, const nlohmann::json& roofline) {
    EXPECT_EQ(cycle["simulated_off_chip_bytes"], roofline["simulated_off_chip_bytes"]);
    EXPECT_EQ(cycle["simulated_off_chip_bytes"], cycle["off_chip_bytes"]);
    EXPECT_GE(cycle["cycles"].get<double>(),
              cycle["off_chip_bytes"].get<double>() / cycle["peak_offchip_bytes_per_cycle"].get<double>());
    EXPECT_GE(cycle["cycles"].get<double>(),
              cycle["graph_flops"].get<double>() / cycle["peak_flops_per_cycle"].get<double>());
}

// Fig 8's 15 SwiGLU points on step_validation (ideal network, 256 B/cycle memory units) with hardware
// overrides `sets`: cycle-level and roofline cycles; both backends move the same bytes.
std::pair<std::vector<double>, std::vector<double>> fig8Points(const std::vector<std::string>& sets) {
    std::vector<double> cycle, roofline;
    for (int tb : {16, 32, 64})
        for (int ti : {16, 32, 64, 128, 256}) {
            SCOPED_TRACE(std::to_string(tb) + "x" + std::to_string(ti));
            std::vector<std::string> knobs{"tile_b=" + std::to_string(tb),
                                           "tile_inter=" + std::to_string(ti)};
            auto c = run("swiglu", knobs, "cycle", "step_validation", false, sets);
            auto r = run("swiglu", knobs, "roofline", "step_validation", false, sets);
            expectSameTraffic(c, r);
            cycle.push_back(c["cycles"].get<double>());
            roofline.push_back(r["cycles"].get<double>());
        }
    return {cycle, roofline};
}

} // namespace

// The HBM2 tier the HDL drove (the preset's memory): the cycle level tracks the roofline with a Pearson
// correlation of at least 0.99 (the paper's HDL-versus-simulator figure). Measured: 0.9966; every point 6% to
// 16% slower (DRAM row and bank timing the node does not have), but tile_b 64 x tile_inter 256 at 1.33,
// whose 64 KiB tiles take 256 cycles per hop between units, which the roofline does not charge.
TEST(CycleEndToEnd, Fig8SwigluPointsOnHbm2TrackTheRoofline) {
    const auto [cycle, roofline] = fig8Points({});
    for (std::size_t i = 0; i < cycle.size(); ++i) {
        EXPECT_GE(cycle[i] / roofline[i], 1.0);
        EXPECT_LE(cycle[i] / roofline[i], 1.35);
    }
    EXPECT_GE(pearson(cycle, roofline), 0.99);
}

// The same points with the published simulator's HBM node behind the AGCUs as well: 0.998, every point within
// 20% of the roofline, 13 of 15 within 4%.
TEST(CycleEndToEnd, Fig8SwigluPointsOnTheStepNodeTrackTheRoofline) {
    const auto [cycle, roofline] = fig8Points({"memory.hbm=step_node", "memory.layout=row_major"});
    for (std::size_t i = 0; i < cycle.size(); ++i)
        EXPECT_NEAR(cycle[i] / roofline[i], 1.0, 0.25);
    EXPECT_GE(pearson(cycle, roofline), 0.99);
}

TEST(CycleEndToEnd, Fig8OffChipBytesEqualThePapersReference) {
    STEPRDU_NEED_SHARED("reference/fig8_offchip_traffic.csv");
    std::ifstream in(test::sharedPath("reference/fig8_offchip_traffic.csv"));
    std::string line;
    std::getline(in, line); // tile_b,dim,tile_inter,off_chip_bytes,off_chip_MB
    int rows = 0;
    while (std::getline(in, line)) {
        std::stringstream ss(line);
        std::string tb, dim, ti, bytes;
        std::getline(ss, tb, ',');
        std::getline(ss, dim, ',');
        std::getline(ss, ti, ',');
        std::getline(ss, bytes, ',');
        auto c =
            run("swiglu", {"tile_b=" + tb, "tile_inter=" + ti, "hidden=" + dim}, "cycle", "step_validation");
        EXPECT_EQ(c["simulated_off_chip_bytes"].get<std::int64_t>(), std::stoll(bytes)) << line;
        ++rows;
    }
    EXPECT_EQ(rows, 15);
}

// MoE with static and dynamic tiling and with time-multiplexed regions, and attention with each strategy, at
// the paper's sizes (the bundled synthetic traces) on step_eval.
TEST(CycleEndToEnd, PaperWorkloadsRunAndMoveTheRooflinesBytes) {
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases{
        {"moe", {"tile_n=16"}},
        {"moe", {"tile_n=dynamic"}},
        {"moe", {"tile_n=16", "regions=2"}},
        {"attention", {"strategy=coarse"}},
        {"attention", {"strategy=interleaved"}},
        {"attention", {"strategy=dynamic"}},
    };
    for (const auto& [tb, knobs] : cases) {
        SCOPED_TRACE(tb + " " + knobs.front() + (knobs.size() > 1 ? " " + knobs.back() : ""));
        auto c = run(tb, knobs, "cycle", "step_eval");
        expectSameTraffic(c, run(tb, knobs, "roofline", "step_eval"));
        EXPECT_GT(c["units_used"]["pcu"].get<int>(), 0);
        EXPECT_GT(c["onchip_link_bytes"].get<std::int64_t>(), 0);
    }
}

// The directions the paper reports hold on the cycle backend as on the roofline (step_eval, the paper's
// traces). Measured, cycle-level (roofline): dynamic tiling 2.56x (1.65x) faster than static tile 16 on
// Mixtral b64; dynamic parallelization 1.44x (1.57x) faster than static interleaved on the highest-variance
// b64 KV trace; time-multiplexing Mixtral's 8 experts onto 2 regions raises compute utilization from 0.28 to
// 0.73 (0.37 to 0.73).
TEST(CycleEndToEnd, ThePapersDirectionsHold) {
    const std::string mixtral = "expert_routing/mixtral_b64/008_010.csv";
    const std::string kv = "kv_lengths/b64/conv_stdev1457_0961_1024.csv";
    STEPRDU_NEED_SHARED("traces/" + mixtral);
    STEPRDU_NEED_SHARED("traces/" + kv);
    const std::string moeTrace = "trace=" + test::sharedPath("traces/" + mixtral);
    const std::string kvTrace = "trace=" + test::sharedPath("traces/" + kv);
    auto cycles = [](const nlohmann::json& j) { return j["cycles"].get<double>(); };
    for (const std::string backend : {"roofline", "cycle"}) {
        SCOPED_TRACE(backend);
        auto tile16 = run("moe", {"model=mixtral", moeTrace, "tile_n=16"}, backend, "step_eval");
        auto dynamic = run("moe", {"model=mixtral", moeTrace, "tile_n=dynamic"}, backend, "step_eval");
        EXPECT_GT(cycles(tile16) / cycles(dynamic), 1.3);
        auto interleaved =
            run("attention", {"max_n=6464", kvTrace, "strategy=interleaved"}, backend, "step_eval");
        auto parallel = run("attention", {"max_n=6464", kvTrace, "strategy=dynamic"}, backend, "step_eval");
        EXPECT_GT(cycles(interleaved) / cycles(parallel), 1.2);
        auto spatial =
            run("moe", {"model=mixtral", moeTrace, "tile_n=32", "regions=8"}, backend, "step_eval");
        auto multiplexed =
            run("moe", {"model=mixtral", moeTrace, "tile_n=32", "regions=2"}, backend, "step_eval");
        EXPECT_GT(multiplexed["compute_utilization"].get<double>(),
                  1.5 * spatial["compute_utilization"].get<double>());
    }
}

// Scaled-down workloads computing real values: the cycle backend's off-chip memory after the run equals the
// interpreter's, element for element.
TEST(CycleEndToEnd, FunctionalRunsMatchTheInterpreter) {
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases{
        {"swiglu", {"tile_b=16", "tile_inter=128"}},
        {"moe", {"hidden=64", "inter=128", "tile_f=32", "tile_n=4", "elem_bytes=4"}},
        {"moe", {"hidden=64", "inter=128", "tile_f=32", "tile_n=dynamic", "elem_bytes=4"}},
        // Time-multiplexed: at this size the static version needs deeper streams (it deadlocks at depth 2 on
        // both timed backends: CliCycleErrors.ADeadlockEndsWithExitCode3).
        {"moe",
         {"hidden=64", "inter=128", "tile_f=32", "tile_n=8", "regions=2", "channel_depth=0", "elem_bytes=4"}},
        {"moe", {"hidden=64", "inter=128", "tile_f=32", "tile_n=dynamic", "regions=4", "elem_bytes=4"}},
        {"attention", {"strategy=coarse", "batch=6", "max_n=4096"}},
        {"attention", {"strategy=interleaved", "batch=6"}},
        {"attention", {"strategy=dynamic", "batch=9", "regions=2"}},
        {"copy", {"bytes=65536", "streams=2"}},
        {"gemm", {"m=64", "k=96", "n=32", "tile_m=32", "tile_k=32", "tile_n=16"}},
        {"qkv",
         {"hidden=64", "heads=8", "kv_heads=2", "head_dim=16", "batch=8", "tile_k=32", "elem_bytes=4"}},
        {"decoder",
         {"hidden=32", "heads=4", "kv_heads=2", "head_dim=8", "experts=4", "topk=2", "inter=32", "tile_f=16",
          "batch=8", "max_n=4096", "elem_bytes=4", "variant=optimized", "regions=2"}},
    };
    for (const auto& [tb, knobs] : cases) {
        SCOPED_TRACE(tb + " " + knobs.front());
        auto c = run(tb, knobs, "cycle", "step_eval", true);
        EXPECT_TRUE(c["scoreboard"]["equal"].get<bool>()) << c["scoreboard"].dump();
        EXPECT_LE(c["rel_error"].get<double>(), 1e-4);
    }
}

// An MoE of two experts on a tiny chip of 16 PCUs (8 x 4 grid): every compute operator down to one PCU still
// leaves four too many, so `shrink` puts four operators on a producer's PCU each; each pair takes turns and
// the results stay exact.
TEST(CycleEndToEnd, OperatorsSharingAPcuKeepTheResults) {
    auto c = run(
        "moe",
        {"experts=2", "topk=1", "batch=8", "hidden=64", "inter=64", "tile_n=4", "tile_f=32", "elem_bytes=4"},
        "cycle", "tiny", true, {"chip.rows=8", "pnr.on_overflow=shrink"});
    EXPECT_TRUE(c["scoreboard"]["equal"].get<bool>()) << c["scoreboard"].dump();
    int shared = 0;
    for (const auto& line : c["pnr"]["shrunk"])
        shared += line.get<std::string>().find("shares the PCU of") != std::string::npos;
    EXPECT_EQ(shared, 4) << c["pnr"]["shrunk"].dump();
    EXPECT_EQ(c["pnr"]["units"]["pcu"]["used"], 16);
}

// The packet-level fabric against the flit-level one (every flit its own packet, wormhole), from seed 1's
// placement (the same in both). These were apart by up to 37% where lanes share links: a stage PMU
// forwarded a tile only once every lane's piece was in, which the packet model hid by knowing tails ahead
// (gemm 4.6%, 7.2% on sn40l), and a packet's head blocked hops ahead froze its body in the small buffers
// behind it, which the packet model did not (swiglu 26% on step_eval, 19% on sn40l). Each lane now streams
// through its own stage PMU, and a link stays held while the head's grants further on can still hold up
// the tail (RdnMesh::Hold): these agree within 0.1% (docs/cycle.md, the flit-level mode) but where a
// multicast forks beside a busy lane.
TEST(CycleEndToEnd, FlitLevelFabricConfirmsThePacketModel) {
    struct Case {
        std::string tb, hw;
        std::vector<std::string> knobs;
        double tolerance;
    };
    const std::vector<Case> cases{
        // Its input Broadcast forks beside a weight lane on seed 1's placement: 13.7% (see the last case).
        {"swiglu", "step_eval", {}, 0.15},
        {"swiglu", "sn40l", {}, 0.05},
        {"gemm", "step_eval", {}, 0.05},
        {"gemm", "sn40l", {}, 0.05},
        {"copy", "step_eval", {"streams=4"}, 0.03},
        // Seed 1's placement forks a multicast beside a loaded link: 3.1% (seeds 2-4 0.2-1.5%; with multicast
        // packets a buffer long, 1.1%).
        {"attention", "step_eval", {"batch=8"}, 0.04},
        {"attention", "step_eval", {"batch=8", "strategy=coarse"}, 0.03},
        // A stall on one branch of a multicast reaches its sibling branches through the fork flit by flit
        // (the fork passes a flit once every branch took the one ahead), not in the packet model: 12% here
        // (37% before), the flit level slower.
        {"swiglu", "step_eval", {"tile_b=16"}, 0.15},
    };
    for (const auto& [tb, hw, knobs, tolerance] : cases) {
        SCOPED_TRACE(tb + " " + hw + (knobs.empty() ? "" : " " + knobs.back()));
        tb::RunRequest r;
        r.testbench = tb;
        r.knobs = knobs;
        r.backend = "cycle";
        r.hw = hw;
        r.sets = {"pnr.starts=1"};
        auto packet = tb::runTestbench(r)["cycles"].get<double>();
        r.sets = {"pnr.starts=1", "rdn.flit_level=true"};
        auto flit = tb::runTestbench(r)["cycles"].get<double>();
        EXPECT_NEAR(flit / packet, 1.0, tolerance) << "packet " << packet << ", flit " << flit;
    }
}

// What keeps swiglu apart above is its input Broadcast: with the multicast's packets no longer than a
// buffer (rdn.multicast_packet_flits = rdn.vc_buffer_flits), no link of it is ever held for a long packet's
// tail, and the packet model gives the flit-level cycles. Seed 3's placement is 44% apart by default
// (6,722 cycles packet by packet, 9,701 flit by flit); measured equal to the cycle on every case here.
TEST(CycleEndToEnd, MulticastPacketsABufferLongGiveTheFlitLevelCycles) {
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases{
        {"pnr.seed=1", {}}, {"pnr.seed=3", {}}, {"pnr.seed=1", {"tile_b=16"}}};
    for (const auto& [seed, knobs] : cases) {
        SCOPED_TRACE(seed + (knobs.empty() ? "" : " " + knobs.back()));
        tb::RunRequest r;
        r.testbench = "swiglu";
        r.knobs = knobs;
        r.backend = "cycle";
        r.sets = {"pnr.starts=1", "pnr.evaluate=0", seed, "rdn.multicast_packet_flits=4"};
        auto packet = tb::runTestbench(r)["cycles"].get<double>();
        r.sets = {"pnr.starts=1", "pnr.evaluate=0", seed, "rdn.flit_level=true"};
        auto flit = tb::runTestbench(r)["cycles"].get<double>();
        EXPECT_NEAR(flit / packet, 1.0, 0.005) << "packet " << packet << ", flit " << flit;
    }
}

// A run's stats, keyed by module path: operators under their units, streams, switches, memory.
TEST(CycleEndToEnd, StatsAreKeyedByModulePath) {
    tb::RunRequest r;
    r.testbench = "gemm";
    r.backend = "cycle";
    r.sets = {"pnr.placer=constructive"}; // the matmul group's host on pcu_r0c0
    tb::RunArtifacts art;
    auto j = tb::runTestbench(r, &art);
    const auto& chip = art.stats["chip"];
    EXPECT_EQ(chip["pcu_r0c0"]["matmul"]["busy_cycles"]["unit"], "cycles");
    EXPECT_EQ(chip["pcu_r0c0"]["matmul"]["units"]["value"], 8); // 4096 / 512 FLOP/cycle
    EXPECT_GT(chip["rdn"]["link_bytes"]["value"].get<double>(), 0);
    EXPECT_GT(chip["hbm"]["requests"]["value"].get<double>(), 0);
    EXPECT_EQ(art.statsCsv.rfind("path,value,unit\n", 0), 0u);
    // The summary in the result sums the same stats.
    double input = 0;
    std::istringstream csv(art.statsCsv);
    for (std::string line; std::getline(csv, line);)
        if (line.find(".stall_input_cycles,") != std::string::npos)
            input += std::stod(line.substr(line.find(".stall_input_cycles,") + 20));
    EXPECT_DOUBLE_EQ(j["stall_cycles"]["input"].get<double>(), input);
    EXPECT_EQ(j["units_used"]["pcu"], 8);
}

// A compute group is busy as a whole: each of the matmul's 8 PCUs reports the group's work, the host's
// busy_cycles (the matmul operator's), not only the PCU that hosts its process.
TEST(CycleEndToEnd, EveryPcuOfAGroupIsCreditedWithItsWork) {
    tb::RunRequest r;
    r.testbench = "gemm";
    r.backend = "cycle";
    r.sets = {"pnr.placer=constructive"};
    tb::RunArtifacts art;
    auto j = tb::runTestbench(r, &art);
    const auto& chip = art.stats["chip"];
    const double work = chip["pcu_r0c0"]["matmul"]["busy_cycles"]["value"].get<double>();
    ASSERT_GT(work, 0);
    int busy = 0;
    for (const auto& [unit, stats] : chip.items()) {
        if (unit.rfind("pcu_", 0) != 0) continue;
        SCOPED_TRACE(unit);
        EXPECT_EQ(stats["busy_cycles"]["value"].get<double>(), work);
        ++busy;
    }
    EXPECT_EQ(busy, j["units_used"]["pcu"].get<int>());
}

// Same program, configuration and seed: the same cycles and the same statistics, to the last digit.
TEST(CycleEndToEnd, RunsAreDeterministic) {
    for (const auto& [tb, knobs] : std::vector<std::pair<std::string, std::vector<std::string>>>{
             {"moe", {"hidden=512", "inter=1024", "tile_n=dynamic"}}, {"attention", {"batch=8"}}}) {
        tb::RunRequest r;
        r.testbench = tb;
        r.knobs = knobs;
        r.backend = "cycle";
        tb::RunArtifacts a, b;
        auto x = tb::runTestbench(r, &a), y = tb::runTestbench(r, &b);
        EXPECT_EQ(x["cycles"], y["cycles"]) << tb;
        EXPECT_EQ(x["events"], y["events"]) << tb;
        EXPECT_EQ(a.statsCsv, b.statsCsv) << tb;
    }
}

// Physics on sn40l. A gemm whose 256 x 256 tiles give each byte on the group's input link 64 FLOPs is
// compute-bound on its 4096 / 512 = 8 PCUs: 2 x 1024^3 FLOPs / (8 x 512) = 524,288 cycles, which the chip
// reaches within 10% (measured 541,672: fill, drain and the first tiles' arrival) and cannot beat; nothing
// beats the whole chip's peak. A copy of 256 MiB in 32 streams never beats the HBM tier's peak and takes
// bytes / effective bandwidth within 20%, the effective bandwidth being what the HBM2E tier alone
// (memtrace, the preset's mapping and queues) sustains on the same 4 KiB reads and writes at the same
// addresses with every request offered at once: 67.1% of peak, where the chip reaches 59.0% (593,225
// cycles with each stream's load and store annealed onto one AGCU; 564,153, 61.8%, with them a stream
// apart: the order in which the AGCUs' requests meet in the tier's queues moves it by 5%).
TEST(CycleEndToEnd, NothingBeatsThePhysicalBoundsOnSn40l) {
    auto g = run("gemm",
                 {"m=1024", "k=1024", "n=1024", "tile_m=256", "tile_k=256", "tile_n=256", "compute_bw=4096"},
                 "cycle", "sn40l");
    const double flops = 2.0 * 1024 * 1024 * 1024;
    ASSERT_EQ(g["units_used"]["pcu"].get<int>(), 8);
    const double bound = flops / (8 * 512);
    EXPECT_GE(g["cycles"].get<double>(), bound);
    EXPECT_LE(g["cycles"].get<double>(), 1.10 * bound);
    EXPECT_GE(g["cycles"].get<double>(), flops / g["peak_flops_per_cycle"].get<double>());

    auto c = run("copy", {"bytes=268435456", "streams=32"}, "cycle", "sn40l");
    const double bytes = 2.0 * 268435456; // read and written
    EXPECT_EQ(c["simulated_off_chip_bytes"].get<double>(), bytes);
    const double peak = c["memory"]["hbm"]["peak_bytes_per_cycle"].get<double>();
    EXPECT_GE(c["cycles"].get<double>(), bytes / peak);

    // The copy's requests as the chip lays the tensors out: src_s and dst_s of 8 MiB each, in that order.
    const auto trace =
        std::filesystem::temp_directory_path() / ("steprdu_copy_" + std::to_string(::getpid()));
    {
        std::ofstream f(trace);
        f << "cycle,op,address,bytes\n";
        const std::int64_t MiB = 1 << 20;
        for (std::int64_t k = 0; k < 2048; ++k)
            for (std::int64_t st = 0; st < 32; ++st)
                f << "0,R," << st * 16 * MiB + k * 4096 << ",4096\n0,W," << st * 16 * MiB + 8 * MiB + k * 4096
                  << ",4096\n";
    }
    const auto m = test::runCli("memtrace " + trace.string() + " --mem sn40l --json");
    std::filesystem::remove(trace);
    ASSERT_EQ(m.code, 0) << m.err;
    const double effective = nlohmann::json::parse(m.out)["bandwidth_fraction"].get<double>() * peak;
    EXPECT_LE(c["cycles"].get<double>(), 1.20 * bytes / effective)
        << "chip " << bytes / c["cycles"].get<double>() << " B/cycle, HBM tier alone " << effective;
}
