// The stats registry: every stat has one definition (unit and meaning) and docs/stats.md lists them all.
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "hw/sim/Stats.h"

using namespace steprdu::hw;

TEST(Stats, DocsHoldTheGeneratedTable) {
    std::ifstream in(std::string(STEPRDU_SOURCE_DIR) + "/docs/stats.md");
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string doc = ss.str(), begin = "<!-- BEGIN statsMarkdown() -->\n",
                      end = "<!-- END statsMarkdown() -->";
    auto b = doc.find(begin), e = doc.find(end);
    ASSERT_NE(b, std::string::npos);
    ASSERT_NE(e, std::string::npos);
    EXPECT_EQ(doc.substr(b + begin.size(), e - b - begin.size()), statsMarkdown())
        << "replace the table in docs/stats.md with the output of `steprdu list --stats` "
           "(scripts/update-doc-tables.sh):\n"
        << statsMarkdown();
}

TEST(Stats, AStatWithoutADefinitionIsRefused) {
    StatsRegistry r;
    EXPECT_THROW(r.add("chip.pcu_r0c0", "made_up_cycles", 1), std::logic_error);
    r.add("chip.pcu_r0c0", "busy_cycles", 5);
    r.add("chip.pcu_r0c0.gate", "busy_cycles", 3);
    r.add("chip.pmu_r0c1", "read_bytes", 64);
    EXPECT_EQ(r.sum("busy_cycles"), 8);
    EXPECT_EQ(r.sum("busy_cycles", "chip.pcu_r0c0."), 3);
    auto j = r.toJson();
    EXPECT_EQ(j["chip"]["pcu_r0c0"]["busy_cycles"]["value"], 5);
    EXPECT_EQ(j["chip"]["pcu_r0c0"]["gate"]["busy_cycles"]["unit"], "cycles");
    EXPECT_EQ(r.toCsv(), "path,value,unit\nchip.pcu_r0c0.busy_cycles,5,cycles\n"
                         "chip.pcu_r0c0.gate.busy_cycles,3,cycles\nchip.pmu_r0c1.read_bytes,64,bytes\n");
}

TEST(Stats, NamesAreUniqueAndEveryOneHasAUnitAndADefinition) {
    std::set<std::string> seen;
    for (const auto& d : statDefinitions()) {
        EXPECT_TRUE(seen.insert(d.name).second) << d.name;
        EXPECT_FALSE(d.unit.empty()) << d.name;
        EXPECT_GT(d.description.size(), 20u) << d.name;
    }
}
