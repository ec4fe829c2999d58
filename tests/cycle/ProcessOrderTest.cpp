// Cycles belong to the hardware: the order in which SystemC runs the processes of one cycle (permuted by
// sim.process_order, which changes the order the chip creates them in) changes no cycle and no statistic.
// Same-cycle interactions are decided by modelled arbitration: requests reach the memory tiers ordered by
// issue cycle, AGCU and operator, and sends reach the fabric's source queues ordered by ready cycle and
// flow. Each run is its own process (util/ForkRun.h).
#include <gtest/gtest.h>

#include "testbenches/Runner.h"

using namespace steprdu;

namespace {

struct Case {
    std::string testbench;
    std::vector<std::string> knobs;
    std::string hw;
};

struct Outcome {
    nlohmann::json cycles, events;
    std::string stats;
};

Outcome runIn(const Case& c, const std::string& order, int noticeCycles = 0) {
    tb::RunRequest r;
    r.testbench = c.testbench;
    r.knobs = c.knobs;
    r.backend = "cycle";
    r.hw = c.hw;
    r.sets = {"sim.process_order=" + order, "pnr.starts=1",
              "sim.completion_notice_cycles=" + std::to_string(noticeCycles)};
    tb::RunArtifacts a;
    auto j = tb::runTestbench(r, &a);
    return {j["cycles"], j["events"], a.statsCsv};
}

} // namespace

// Each case was order-dependent before (forward / reverse / shuffles 1-3): swiglu on sn40l 6,444 / 6,733 /
// 6,809 / 6,773 / 6,809 (the DRAM tier took same-cycle requests in process order), attention on step_eval
// 16,094 / 16,127 (the Sources on one AGCU entered its source queue in process order), and on sn40l 19,238 /
// 18,148 / 19,244 (both).
TEST(ProcessOrder, CyclesAndStatsDoNotDependOnIt) {
    const std::vector<Case> cases{{"swiglu", {}, "sn40l"},
                                  {"attention", {"batch=16"}, "step_eval"},
                                  {"attention", {"batch=16"}, "sn40l"},
                                  {"copy", {}, "sn40l"}};
    for (const auto& c : cases) {
        SCOPED_TRACE(c.testbench + " on " + c.hw);
        const Outcome forward = runIn(c, "forward");
        for (const std::string order : {"reverse", "shuffle:1", "shuffle:2", "shuffle:3"}) {
            SCOPED_TRACE(order);
            const Outcome o = runIn(c, order);
            EXPECT_EQ(o.cycles, forward.cycles);
            EXPECT_EQ(o.events, forward.events);
            EXPECT_EQ(o.stats, forward.stats);
        }
    }
}

// When an AGCU learns of a completion (0 to 3 cycles after the memory reports it, well within the TLN's 20
// cycles before its data arrive) changes no cycle and no statistic: the fabric acts on the cycle the
// completion carries. Attention with head_dim 128 gave 93,018 cycles with 0 to 2 cycles' delay and 92,839
// with 3 while a unit's source queue took packets in the order sent: a tile its AGCU learned of sooner went
// ahead of a Source's token ready before the tile.
TEST(ProcessOrder, WhenACompletionIsLearnedChangesNothing) {
    const std::vector<Case> cases{{"swiglu", {}, "sn40l"},
                                  {"attention", {"batch=16"}, "sn40l"},
                                  {"attention", {"batch=16", "strategy=coarse"}, "sn40l"},
                                  {"attention", {"batch=32", "head_dim=128"}, "sn40l"},
                                  {"copy", {}, "sn40l"}};
    for (const auto& c : cases) {
        SCOPED_TRACE(c.testbench + " on " + c.hw);
        const Outcome prompt = runIn(c, "forward");
        for (int late : {1, 2, 3}) {
            SCOPED_TRACE(late);
            const Outcome o = runIn(c, "forward", late);
            EXPECT_EQ(o.cycles, prompt.cycles);
            EXPECT_EQ(o.events, prompt.events);
            EXPECT_EQ(o.stats, prompt.stats);
        }
    }
}

// A malformed order is refused when the configuration is read, naming the key and what it takes.
TEST(ProcessOrder, AMalformedOrderIsRefused) {
    tb::RunRequest r;
    r.testbench = "copy";
    r.backend = "cycle";
    r.sets = {"sim.process_order=sideways"};
    try {
        tb::runTestbench(r);
        FAIL() << "expected an error";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("sim.process_order"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("shuffle:<seed>"), std::string::npos) << e.what();
    }
}
