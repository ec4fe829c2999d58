#pragma once
// Experiment definitions (configs/experiments/*.yaml, compiled in): a testbench, fixed knobs and sweeps per
// series, and the columns of the CSV they produce. `{shared}` in a knob value is the shared data folder.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace steprdu::tb {

struct ExperimentSeries {
    std::string label;
    std::vector<std::pair<std::string, std::string>> knobs;
    std::vector<std::pair<std::string, std::vector<std::string>>> sweep; // cartesian product, in order
};

struct ExperimentDef {
    std::string name, description, testbench, backend = "roofline", hw = "step_eval";
    std::string expand = "grid"; // how a series' sweep axes combine: grid (cartesian product) or zip
    std::vector<std::string> columns;
    std::vector<ExperimentSeries> series;
};

struct ExperimentResult {
    ExperimentDef def;
    std::vector<nlohmann::json> rows; // run results, each with "series" and "knobs"
};

std::vector<std::string> experimentNames();
ExperimentDef loadExperiment(const std::string& name); // BadInput naming the file and key
// An experiment from YAML text; `file` names it in errors.
ExperimentDef parseExperiment(const std::string& yaml, const std::string& file, const std::string& name);
bool readsSharedData(const ExperimentDef& def); // some knob value holds `{shared}`
// A series' sweep points, each its axis values in axis order: the cartesian product (grid, the last axis
// fastest) or the i-th value of every axis (zip: equal lengths, else BadInput naming `where` and the axis).
std::vector<std::vector<std::pair<std::string, std::string>>>
expandSeries(const ExperimentSeries& s, const std::string& expand, const std::string& where);
// `value` with `{shared}` replaced by the shared data folder.
std::string withSharedDir(const std::string& value, const std::string& sharedDir);
// `progress` is called before each run with (index, total, description).
ExperimentResult runExperiment(const ExperimentDef& def, const std::string& sharedDir,
                               const std::function<void(int, int, const std::string&)>& progress = {});
std::string experimentCsv(const ExperimentResult& r);

} // namespace steprdu::tb
