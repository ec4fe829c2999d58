// Bindings give a program's data-dependent sizes their counts. A name the graph does not have is refused; the
// interpreter runs without them and reports the counts the data gave; a timed run whose bound metrics count
// other off-chip bytes than it moved says so with both figures.
#include <gtest/gtest.h>

#include "hw/config/HwConfigLoader.h"
#include "step_ops/GraphBuilder.h"
#include "step_ops/Metrics.h"
#include "testbenches/Runner.h"
#include "util/Error.h"

using namespace steprdu;

namespace {

// Eight 16-float rows of x are routed to two consumers, five to the first and three to the second. Each
// consumer loads one 16-float row of w per row it receives (a load replayed per element of its reference).
// Off-chip bytes: x, 8 x 64 = 512, and w, (n0 + n1) x 64: 1,024 with the data's counts.
struct Routed {
    tb::Workload w;
    std::string n0, n1; // the partition outputs' symbols
};

Routed routedRows() {
    step::GraphBuilder b;
    b.tensor("x", 8, 16, "randn", 1);
    b.tensor("w", 1, 16, "randn", 2);
    auto x = b.flatten(b.linearOffChipLoad("x", 1, 16, {1, 1}, {8, 1}, std::nullopt, 0, 1, "load_x"), 0, 1);
    auto keep = b.selectGen({{0}, {1}, {0}, {0}, {1}, {0}, {1}, {0}}, 2, step::Shape({1, 8}), "keep");
    auto parts = b.partition(x, keep, 0, 2, "split");
    Routed r;
    r.n0 = parts[0].shape().dims()[0].size.symName();
    r.n1 = parts[1].shape().dims()[0].size.symName();
    for (int i = 0; i < 2; ++i)
        b.sink(b.linearOffChipLoad("w", 1, 16, {1}, {1}, parts[i], 0, 1, "load_w" + std::to_string(i)));
    r.w.graph = b.finish();
    r.w.params = nlohmann::json::object();
    return r;
}

nlohmann::json run(tb::Workload& w, const std::string& backend) {
    tb::RunRequest req;
    req.backend = backend;
    req.hw = "tiny";
    return tb::runWorkload(req, hw::loadHwConfig("tiny"), w, nullptr);
}

} // namespace

TEST(Bindings, ANameTheGraphDoesNotHaveIsRefusedNamingItsSymbols) {
    auto r = routedRows();
    r.w.bindings = {{r.n0, 5}, {"nope", 3}};
    try {
        run(r.w, "roofline");
        FAIL() << "accepted";
    } catch (const BadInput& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("'nope' is not a symbol of the graph"), std::string::npos) << msg;
        EXPECT_NE(msg.find(r.n0), std::string::npos) << msg;
        EXPECT_NE(msg.find(r.n1), std::string::npos) << msg;
    }
}

TEST(Bindings, AnUnboundTimedRunSaysHowToBind) {
    auto r = routedRows();
    try {
        run(r.w, "roofline");
        FAIL() << "accepted";
    } catch (const BadInput& e) {
        EXPECT_NE(std::string(e.what()).find("g.bind(name, count)"), std::string::npos) << e.what();
    }
}

TEST(Bindings, TheInterpreterRunsUnboundAndReportsTheCountsItObserved) {
    auto r = routedRows();
    const auto j = run(r.w, "interp");
    EXPECT_EQ(j["observed_bindings"][r.n0].get<int>(), 5) << j["observed_bindings"].dump();
    EXPECT_EQ(j["observed_bindings"][r.n1].get<int>(), 3);
    EXPECT_EQ(j["off_chip_bytes"].get<int>(), 1024); // bound with the observed counts
    EXPECT_EQ(j["simulated_off_chip_bytes"].get<int>(), 1024);
    EXPECT_TRUE(j["metrics_agree_with_run"].get<bool>());
}

TEST(Bindings, WrongCountsAreWarnedWithBothByteFigures) {
    auto r = routedRows();
    r.w.bindings = {{r.n0, 1}, {r.n1, 1}}; // 512 + 2 x 64 = 640 counted, 1,024 moved
    for (const char* backend : {"roofline", "cycle", "interp"}) {
        SCOPED_TRACE(backend);
        const auto j = run(r.w, backend);
        EXPECT_EQ(j["off_chip_bytes"].get<int>(), 640);
        EXPECT_EQ(j["simulated_off_chip_bytes"].get<int>(), 1024);
        EXPECT_FALSE(j["metrics_agree_with_run"].get<bool>());
        ASSERT_TRUE(j["warnings"].is_array() && !j["warnings"].empty()) << j.dump();
        const std::string warning = j["warnings"].back();
        EXPECT_NE(warning.find("count 640 off-chip bytes but the run moved 1024"), std::string::npos)
            << warning;
    }
    r.w.bindings = {{r.n0, 5}, {r.n1, 3}};
    EXPECT_TRUE(run(r.w, "roofline")["metrics_agree_with_run"].get<bool>());
}
