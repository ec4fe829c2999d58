#pragma once
// Runs one testbench on one backend and returns the result object of docs/cli.md; shared by `steprdu run`,
// experiments and the benchmark so that all of them measure exactly the same thing.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/HwConfig.h"
#include "models/roofline/RooflineSimulator.h"
#include "testbenches/Testbench.h"

namespace steprdu::tb {

struct RunRequest {
    std::string testbench;
    std::vector<std::string> knobs;   // key=value
    std::string backend = "roofline"; // interp | roofline | cycle
    std::string hw = "step_eval";     // preset or YAML file
    std::vector<std::string> sets;    // hardware overrides key=value
    std::int64_t maxCycles = 0;
    double maxWallSeconds = 0;
    std::function<void(std::int64_t cycle, double wallSeconds)> progress; // long timed runs
    bool functional = false; // cycle backend: run on real values and compare with the interpreter
};

struct RunArtifacts {
    hw::HwConfig config;
    nlohmann::json graph;     // the graph as built (JSON)
    std::string dot;          // the graph as DOT
    nlohmann::json operators; // per-operator timing (roofline)
    nlohmann::json stats;     // cycle backend: stats by module path (stats.json)
    std::string statsCsv;     // the same, flat (stats.csv)
};

// Symbolic metrics of a built workload: the keys of `steprdu analyze`.
nlohmann::json workloadMetrics(const Workload& w);
// Roofline options from a hardware config and the workload's own timing settings.
roofline::RooflineOptions rooflineOptions(const hw::HwConfig& cfg, const Workload& w);
nlohmann::json runTestbench(const RunRequest& r, RunArtifacts* artifacts = nullptr);

} // namespace steprdu::tb
