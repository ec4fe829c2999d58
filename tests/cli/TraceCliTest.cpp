// --trace perfetto (issue 12): the run directory's trace.json parses as Chrome/Perfetto trace events and
// holds a slice per operator firing (roofline) or unit activity (cycle) and counters for stream occupancy and
// link and memory bandwidth; --trace-window bounds it to a cycle range.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "CliRun.h"

using steprdu::test::runCli;
namespace fs = std::filesystem;

namespace {

struct Trace {
    std::map<int, std::string> processes; // pid -> name
    std::set<std::string> threads;        // track names
    std::vector<nlohmann::json> slices, counters;
    nlohmann::json other;
    std::set<std::string> countersOf(const std::string& process) const {
        std::set<std::string> names;
        for (const auto& c : counters)
            if (processes.at(c["pid"]) == process) names.insert(c["name"].get<std::string>());
        return names;
    }
};

Trace traceOf(const std::string& args, const fs::path& out) {
    fs::remove_all(out);
    auto r = runCli(args + " --trace perfetto --out " + out.string());
    EXPECT_EQ(r.code, 0) << r.err;
    Trace t;
    const auto j = nlohmann::json::parse(std::ifstream(out / "trace.json"));
    for (const auto& e : j["traceEvents"]) {
        const std::string ph = e["ph"];
        if (ph == "M" && e["name"] == "process_name") t.processes[e["pid"]] = e["args"]["name"];
        if (ph == "M" && e["name"] == "thread_name") t.threads.insert(e["args"]["name"].get<std::string>());
        if (ph == "X") t.slices.push_back(e);
        if (ph == "C") t.counters.push_back(e);
    }
    t.other = j["otherData"];
    return t;
}

fs::path scratch(const std::string& name) {
    return fs::temp_directory_path() / ("steprdu_trace_" + std::to_string(::getpid()) + "_" + name);
}

TEST(CliTrace, RooflineSlicesPerOperatorFiringAndStreamAndHbmCounters) {
    const auto out = scratch("roofline");
    const auto t = traceOf("run swiglu", out);
    // Every firing of the three compute operators and the HBM traffic of the four memory operators.
    const auto graph = nlohmann::json::parse(std::ifstream(out / "graph.json"));
    std::set<std::string> ops;
    for (const auto& o : graph["operators"])
        ops.insert(o["name"].get<std::string>());
    EXPECT_FALSE(t.threads.empty());
    for (const auto& name : t.threads)
        EXPECT_TRUE(ops.count(name)) << name << " is no operator of the graph";
    EXPECT_GT(t.slices.size(), 20u);
    for (const auto& s : t.slices)
        EXPECT_GE(s["dur"].get<std::int64_t>(), 0);
    EXPECT_FALSE(t.countersOf("streams").empty());
    EXPECT_TRUE(t.countersOf("memory").count("hbm read"));
    EXPECT_TRUE(t.countersOf("memory").count("hbm write"));
    EXPECT_EQ(t.other["truncated"], false);
    // Stream levels never go negative and end at zero (every element pushed is popped).
    std::map<std::string, std::int64_t> last;
    for (const auto& c : t.counters)
        if (t.processes.at(c["pid"]) == "streams") {
            EXPECT_GE(c["args"]["value"].get<std::int64_t>(), 0);
            last[c["name"]] = c["args"]["value"];
        }
    for (const auto& [name, v] : last)
        EXPECT_EQ(v, 0) << name;
    fs::remove_all(out);
}

TEST(CliTrace, CycleLevelUnitSlicesLinkAndMemoryCountersAndTheWindowBoundsThem) {
    const auto full = traceOf("run swiglu --backend cycle", scratch("cycle"));
    EXPECT_GT(full.slices.size(), 20u);
    for (const auto& name : full.threads)
        EXPECT_EQ(name.rfind("chip.", 0), 0u) << name << " is no unit's operator";
    EXPECT_FALSE(full.countersOf("streams").empty());
    EXPECT_FALSE(full.countersOf("links").empty());
    EXPECT_FALSE(full.countersOf("memory").empty());
    const auto w = traceOf("run swiglu --backend cycle --trace-window 1000:3000", scratch("window"));
    EXPECT_EQ(w.other["window"], nlohmann::json::array({1000, 3000}));
    EXPECT_LT(w.slices.size() + w.counters.size(), (full.slices.size() + full.counters.size()) / 2);
    EXPECT_FALSE(w.slices.empty());
    for (const auto& s : w.slices) {
        const std::int64_t a = s["ts"], d = s["dur"];
        EXPECT_LT(a, 3000);
        EXPECT_GT(a + std::max<std::int64_t>(d, 1), 1000);
    }
    for (const auto& c : w.counters) {
        EXPECT_GE(c["ts"].get<std::int64_t>(), 1000);
        EXPECT_LT(c["ts"].get<std::int64_t>(), 3000);
    }
    fs::remove_all(scratch("cycle"));
    fs::remove_all(scratch("window"));
}

TEST(CliTrace, BadTraceOptionsExitWithTwo) {
    for (const std::string args : {"run swiglu --trace perfetto", "run swiglu --trace chrome --out /tmp/x",
                                   "run swiglu --trace perfetto --out /tmp/x --trace-window 5:3",
                                   "run swiglu --trace perfetto --out /tmp/x --trace-window 10",
                                   "run swiglu --backend interp --trace perfetto --out /tmp/x"}) {
        auto r = runCli(args);
        EXPECT_EQ(r.code, 2) << args;
        EXPECT_NE(r.err.find("--trace"), std::string::npos) << r.err;
    }
}

} // namespace
