#pragma once
// The cycle backend: places a STeP graph on the chip (hw/pnr), elaborates the chip, and simulates it until
// every operator has finished. One simulation per process (SystemC cannot elaborate twice): callers that run
// several use util/ForkRun.h. A run that stops making progress is reported with the blocked operators, units,
// streams and links (NoProgress); --max-cycles and --max-wall-seconds end it with LimitReached.
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "hw/Chip.h"
#include "hw/config/HwConfig.h"
#include "hw/sim/Stats.h"
#include "step_ops/Graph.h"
#include "step_ops/TensorStore.h"
#include "util/Timeline.h"

namespace steprdu::hw {

struct CycleOptions {
    pnr::LoweringOptions streams; // depths, element sizes and data-dependent sizes, for lowering and the chip
    bool functional = false;      // operators compute real values
    std::int64_t maxCycles = 0;
    double maxWallSeconds = 0;
    // Stop with NoProgress when no token has moved on any stream for this many cycles (0: never).
    std::int64_t watchdogCycles = 0;
    std::function<void(Cycle cycle, double wallSeconds)> progress;
    double progressSeconds = 2.0;
    // Records unit work, stream occupancy, link and memory bandwidth (`--trace perfetto`); the run makes it
    // Timeline::active() while it lasts.
    Timeline* timeline = nullptr;
    // An earlier place and route to reuse (its pnr.json or result.json, pnr::reusePlacement), read from
    // `placementFrom`; without one the graph is placed and routed.
    std::optional<nlohmann::json> placement;
    std::string placementFrom;
};

struct CycleResult {
    Cycle cycles = 0;
    nlohmann::json summary; // Chip::summary: units used, link bytes, stalls, off-chip bytes; "pnr": pnr.json
    StatsRegistry stats;
    std::int64_t events = 0;
    double wallSeconds = 0;
};

class CycleSimulator {
  public:
    CycleSimulator(HwConfig cfg, CycleOptions o) : cfg_(std::move(cfg)), o_(std::move(o)) {}
    CycleResult run(step::Graph& g, step::TensorStore& store);

  private:
    Chip& elaborate(const step::Graph& g, const pnr::Placement& placement, step::TensorStore& store);
    double simulate(Chip& chip);

    HwConfig cfg_;
    CycleOptions o_;
};

} // namespace steprdu::hw
