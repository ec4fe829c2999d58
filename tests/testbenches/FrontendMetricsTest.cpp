// Golden test: the symbolic metrics of the moe and swiglu graphs, with symbols bound from the real traces,
// must equal ../shared/reference/frontend_metrics.csv and fig8_offchip_traffic.csv exactly (these are exact
// integer byte and FLOP counts, so the tolerance is zero).
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "SharedData.h"
#include "step_ops/Metrics.h"
#include "testbenches/Testbench.h"
#include "util/Strings.h"

using namespace steprdu;

namespace {

std::vector<std::map<std::string, std::string>> readCsv(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    auto header = split(trim(line), ',');
    std::vector<std::map<std::string, std::string>> rows;
    while (std::getline(in, line)) {
        line = trim(line);
        if (line.empty()) continue;
        // Fields may be quoted ("tile=32,R=128").
        std::vector<std::string> f;
        std::string cur;
        bool q = false;
        for (char c : line) {
            if (c == '"')
                q = !q;
            else if (c == ',' && !q) {
                f.push_back(cur);
                cur.clear();
            } else
                cur += c;
        }
        f.push_back(cur);
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < header.size() && i < f.size(); ++i)
            row[header[i]] = f[i];
        rows.push_back(row);
    }
    return rows;
}

struct Measured {
    step::BoundMetrics m;
    tb::Workload w;
};

Measured analyze(const std::string& testbench, const std::vector<std::string>& knobs) {
    const auto& t = tb::findTestbench(testbench);
    tb::Knobs k(t.name(), t.knobs(), knobs);
    auto w = t.build(k, false);
    auto m = step::bindMetrics(w.graph, step::analyzeGraph(w.graph), w.bindings);
    return {m, std::move(w)};
}

const std::map<std::string, std::string> kTraces = {
    {"fig9,mixtral", "traces/expert_routing/mixtral_b64/008_010.csv"},
    {"fig9,qwen", "traces/expert_routing/qwen_b64/032_012.csv"},
    {"fig10,mixtral", "traces/expert_routing/mixtral_b1024/019_009.csv"},
    {"fig10,qwen", "traces/expert_routing/qwen_b1024/022_016.csv"},
    {"fig12/13,qwen", "traces/expert_routing/qwen_b64/032_012.csv"},
};

} // namespace

TEST(TbFrontendMetrics, EveryRowOfTheReferenceTableIsReproducedExactly) {
    STEPRDU_NEED_SHARED("reference/frontend_metrics.csv");
    auto rows = readCsv(test::sharedPath("reference/frontend_metrics.csv"));
    ASSERT_EQ(rows.size(), 33u);
    for (auto& r : rows) {
        std::string key = r["figure"] + "," + r["model"];
        std::vector<std::string> knobs{"model=" + r["model"], "trace=" + test::sharedPath(kTraces.at(key))};
        // config is "tile=N" or "tile=dynamic", and for Figs 12/13 also ",R=regions" with tile_f 48.
        for (auto& part : split(r["config"], ',')) {
            if (part.rfind("tile=", 0) == 0) knobs.push_back("tile_n=" + part.substr(5));
            if (part.rfind("R=", 0) == 0)
                knobs.insert(knobs.end(), {"regions=" + part.substr(2), "tile_f=48", "compute_bw=1024"});
        }
        SCOPED_TRACE(key + " " + r["config"]);
        auto got = analyze("moe", knobs);
        EXPECT_EQ(got.m.offChipBytes, std::stoll(r["off_chip"]));
        EXPECT_EQ(got.m.onChipBytes, std::stoll(r["on_chip_full"]));
        if (!r["on_chip_minus_unused"].empty()) {
            EXPECT_EQ(got.m.onChipBytesActive, std::stoll(r["on_chip_minus_unused"]));
        }
        if (!r["on_chip"].empty()) {
            EXPECT_EQ(got.m.onChipBytesActive, std::stoll(r["on_chip"]));
        }
        if (!r["flops"].empty()) {
            EXPECT_EQ(got.w.figureFlops, std::stoll(r["flops"]));
            EXPECT_EQ(got.w.paddedFlops, std::stoll(r["padded_flops"]));
        }
        if (!r["alg_flops"].empty()) {
            EXPECT_EQ(got.w.figureFlops, std::stoll(r["alg_flops"]));
        }
        if (!r["allocated_flops"].empty()) {
            EXPECT_EQ(got.m.allocatedFlopsPerCycle, std::stoll(r["allocated_flops"]));
        }
    }
}

TEST(TbFrontendMetrics, Fig8OffChipTrafficForAllFifteenTilePairs) {
    STEPRDU_NEED_SHARED("reference/fig8_offchip_traffic.csv");
    auto rows = readCsv(test::sharedPath("reference/fig8_offchip_traffic.csv"));
    ASSERT_EQ(rows.size(), 15u);
    for (auto& r : rows) {
        SCOPED_TRACE(r["tile_b"] + "x" + r["tile_inter"]);
        auto got = analyze("swiglu",
                           {"tile_b=" + r["tile_b"], "tile_inter=" + r["tile_inter"], "hidden=" + r["dim"]});
        EXPECT_EQ(got.m.offChipBytes, std::stoll(r["off_chip_bytes"]));
    }
}
