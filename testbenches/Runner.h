#pragma once
// Runs one testbench on one backend and returns the result object of docs/cli.md; shared by `steprdu run`,
// experiments and the benchmark so that all of them measure exactly the same thing.
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/config/HwConfig.h"
#include "hw/pnr/Floorplan.h"
#include "hw/pnr/Lowering.h"
#include "models/roofline/RooflineSimulator.h"
#include "testbenches/Testbench.h"
#include "util/Timeline.h"

namespace steprdu::tb {

// Longer than any single tile's work on the presets (a 256^3 matmul tile on one PCU is 65,536 cycles).
constexpr std::int64_t kDefaultWatchdogCycles = 10'000'000;

// The backends, the default (roofline) first.
const std::vector<std::string>& backendNames();
// Throws BadInput "<where>: expected roofline, interp or cycle, found '<backend>'" (with the nearest name)
// unless `backend` is one of backendNames().
void checkBackend(const std::string& where, const std::string& backend);

struct RunRequest {
    std::string testbench;
    std::vector<std::string> knobs;   // key=value
    std::string backend = "roofline"; // interp | roofline | cycle
    std::string hw = "step_eval";     // preset or YAML file
    std::vector<std::string> sets;    // hardware overrides key=value
    std::int64_t maxCycles = 0;
    double maxWallSeconds = 0;
    std::int64_t watchdogCycles = kDefaultWatchdogCycles; // timed backends: see RooflineOptions
    std::function<void(std::int64_t cycle, double wallSeconds)> progress; // long timed runs
    bool functional = false; // cycle backend: run on real values and compare with the interpreter
    // Cycle backend: reuse this earlier place and route (a pnr.json, a cycle run's result.json, or a
    // directory holding either) instead of placing and routing the graph anew.
    std::string placement;
    // Timed backends: record a Perfetto timeline (RunArtifacts::trace) of the cycles [traceFrom, traceTo).
    bool trace = false;
    std::int64_t traceFrom = 0, traceTo = Timeline::kEnd;
};

struct RunArtifacts {
    hw::HwConfig config;
    nlohmann::json graph;     // the graph as built (JSON)
    std::string dot;          // the graph as DOT
    nlohmann::json operators; // per-operator timing (roofline)
    nlohmann::json stats;     // cycle backend: stats by module path (stats.json)
    std::string statsCsv;     // the same, flat (stats.csv)
    std::string trace;        // the timeline as trace-event JSON (trace.json), if requested
    // Functional runs (interp, cycle --functional): every off-chip tensor's values afterwards, by name.
    std::map<std::string, std::vector<float>> tensors;
};

// Symbolic metrics of a built workload: the keys of `steprdu analyze`. `observed` binds the symbols that the
// workload's own bindings leave open (the counts an interpreter run observed).
nlohmann::json workloadMetrics(const Workload& w, const step::Bindings& observed = {});
// Place-and-route options from the workload's stream settings and bindings.
hw::pnr::LoweringOptions loweringOptions(const Workload& w);
// Roofline options from a hardware config and the workload's own timing settings.
roofline::RooflineOptions rooflineOptions(const hw::HwConfig& cfg, const Workload& w);
// hw::stepCompatWarning for the request on `cfg`, its hardware: the keys of its --set (a sweep point's
// include its hw. axes) on its backend. Empty if none is distorted.
std::string stepCompatWarning(const RunRequest& r, const hw::HwConfig& cfg);
// Adds stepCompatWarning's text, if any, to the result's "warnings".
nlohmann::json runTestbench(const RunRequest& r, RunArtifacts* artifacts = nullptr);
// Runs a built workload (a testbench's, or a program from the Python front end) on the request's backend
// with `cfg`, the request's hardware; wall time counts from `start`. `r.testbench` and `r.knobs` are unused.
// `golden` builds the program again for the functional cycle run's scoreboard (default: a copy through JSON).
// A binding of a name the graph does not have is refused; the interpreter runs with symbols left unbound and
// reports the counts it observed (`observed_bindings`); a run whose moved bytes differ from its bound metrics
// says so (`metrics_agree_with_run`, and a warning).
nlohmann::json runWorkload(const RunRequest& r, const hw::HwConfig& cfg, Workload& w,
                           RunArtifacts* artifacts = nullptr,
                           std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now(),
                           std::function<step::Graph()> golden = {});
// The request's hardware: its preset or file, with its overrides applied.
hw::HwConfig hardwareOf(const RunRequest& r);
// The roofline and the cycle backend on the same graph: both results, their ratio, the physical lower
// bounds (off-chip bytes at the memory's peak, FLOPs at the assigned PCUs' and at the chip's peak), and
// where the cycle level's cycles went (stall cycles by cause and unit kind, the busiest switches' links and
// memory channels).
nlohmann::json compareBackends(const RunRequest& r);
// Place-and-route of the testbench's graph on the request's hardware (no simulation): the report of
// pnr.json, and the floorplan as SVG, coloured as `colors` says, if `svg` is given.
nlohmann::json placeAndRouteTestbench(const RunRequest& r, std::string* svg = nullptr,
                                      hw::pnr::FloorplanColors colors = hw::pnr::FloorplanColors::Auto);

} // namespace steprdu::tb
