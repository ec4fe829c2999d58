// Graph files (graph.json, written by `run --out`) load back into the same graph, in the same operator order
// (timing depends on it): inputs may name producers listed later (the Broadcasts finalize() appends), and the
// edges of a feedback loop (dynamic attention's "request done" signal) carry their declared type. The
// reloaded graph runs to the same cycles.
#include <gtest/gtest.h>

#include "hw/config/HwConfigLoader.h"
#include "models/roofline/RooflineSimulator.h"
#include "testbenches/Runner.h"
#include "testbenches/Testbench.h"
#include "util/Error.h"

using namespace steprdu;

namespace {

void expectRoundTrip(const std::string& testbench, const std::vector<std::string>& knobs) {
    const auto& t = tb::findTestbench(testbench);
    auto w = t.build(tb::Knobs(t.name(), t.knobs(), knobs), false);
    nlohmann::json file = w.graph.toJson();
    step::Graph reloaded = step::Graph::fromJson(file);
    reloaded.finalize();
    EXPECT_EQ(reloaded.toJson().dump(), file.dump()) << testbench;
    auto options = tb::rooflineOptions(hw::loadHwConfig("step_eval"), w);
    EXPECT_EQ(roofline::RooflineSimulator(options).run(reloaded).cycles,
              roofline::RooflineSimulator(options).run(w.graph).cycles)
        << testbench;
}

} // namespace

TEST(GraphFile, FanOutGraphsReload) {
    expectRoundTrip("moe", {"model=mixtral", "tile_n=16"});
}

TEST(GraphFile, FeedbackLoopsReload) {
    expectRoundTrip("attention", {"strategy=dynamic"});
}

TEST(GraphFile, AFeedbackEdgeWithoutItsTypeIsAClearError) {
    const auto& t = tb::findTestbench("attention");
    auto w = t.build(tb::Knobs(t.name(), t.knobs(), {"strategy=dynamic"}), false);
    nlohmann::json file = w.graph.toJson();
    bool removed = false;
    for (auto& op : file["operators"])
        for (auto& in : op["inputs"])
            if (in.size() > 2 && !removed) {
                in.erase(2);
                removed = true;
            }
    ASSERT_TRUE(removed) << "the dynamic attention graph has a feedback edge";
    try {
        step::Graph::fromJson(file);
        FAIL() << "expected BadInput";
    } catch (const BadInput& e) {
        EXPECT_NE(std::string(e.what()).find("feedback edge without its declared type"), std::string::npos)
            << e.what();
    }
}
