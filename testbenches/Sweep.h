#pragma once
// Hardware and workload sweeps (`steprdu sweep`, `steprdu collect`; docs/sweeps.md).
//
// A spec is an experiment file (configs/experiments/ format) whose sweep axes may also be hardware keys
// (`hw.<key>`, anything `--set` accepts) or `backend`. It expands into a manifest of points; each point's run
// directory is named by a hash of its resolved inputs, so a re-run finds the points already done. A point's
// directory appears in one rename once its run has finished (a killed run leaves only a hidden partial
// directory, which never counts), and collect merges the finished points into results.csv.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "testbenches/Experiment.h"
#include "testbenches/Runner.h"

namespace steprdu::tb {

struct SweepPoint {
    std::string id;                                        // hash of the resolved inputs
    std::string series;                                    // the run's label
    std::vector<std::pair<std::string, std::string>> axes; // axis = value, in spec order
    RunRequest request;
    // Cycle-level points: the hash of the point's structure (testbench, knobs, hardware without the
    // non-structural axes: hw::isStructuralKey), and the overrides that give that hardware. Points of one
    // structure share one place and route, made once from that hardware (placements/<structure>.json).
    std::string structure;
    std::vector<std::string> structureSets;
    nlohmann::json toJson() const;
    static SweepPoint fromJson(const nlohmann::json& j);
};

// Reads a spec: a YAML file, or the name of an experiment in configs/experiments/. `{shared}` in a value is
// replaced by `sharedDir`. Every point is checked before anything runs (testbench, knob names and values,
// hardware keys and values, backend): BadInput naming the file, the axis and the nearest valid name.
// `backend` and `hw`, if not empty, replace the spec's defaults, and `sets` (key=value) apply to every
// point's hardware; the axes still override them.
std::vector<SweepPoint> expandSweep(const std::string& specPathOrName, const std::string& sharedDir,
                                    const std::string& backend = "", const std::string& hw = "",
                                    const std::vector<std::string>& sets = {});

// The sweep directory's files.
std::string manifestPath(const std::string& dir); // manifest.jsonl: one point per line
std::string pointDirectory(const std::string& dir, const std::string& id);
bool pointDone(const std::string& dir, const std::string& id);
// Writes the manifest (atomically). A directory holding another sweep's manifest is refused.
void writeManifest(const std::string& dir, const std::vector<SweepPoint>& points);
std::vector<SweepPoint> readManifest(const std::string& dir);

// The shared placement of the point's structure (empty for points that place nothing), placed and routed
// now if it is not there yet.
std::string placementPath(const std::string& dir, const std::string& structure);
std::string ensurePlacement(const std::string& dir, const SweepPoint& p);

// Runs one point into its run directory (result.json, meta.json, ...): in a hidden partial directory first,
// renamed into place when the run has finished. A point that fails leaves its error.json in
// <dir>/failed/<id>/ and returns its exit code; the point stays pending.
int runSweepPoint(const std::string& dir, const SweepPoint& p, const std::string& commandLine);

struct SweepProgress {
    int done = 0, total = 0, failed = 0;
    double wallSeconds = 0;
};
// Runs every pending point of the manifest with `jobs` local processes (`steprdu sweep --point`), in manifest
// order, after placing and routing each structure the pending points need once. Returns the number of points
// that failed.
int runSweep(const std::string& dir, int jobs, const std::string& self,
             const std::function<void(const SweepProgress&)>& progress);

// Merges the points into <dir>/results.csv (written atomically) and returns its path: one row per point in
// manifest order: series, the axes, then cycles, off_chip_bytes, on_chip_bytes, flops, wall_seconds, the
// utilizations, point, placement (the shared placement a cycle-level point ran on), status (ok, failed or
// pending) and error (a failed point's message; a point not ok has empty metrics). `rows` gets the number of
// finished points.
std::string collectSweep(const std::string& dir, int* rows = nullptr);

// Job files for other schedulers, running the same points with `<self> sweep --point ID --out DIR`:
// a GNU parallel command file (one line per pending point) and a Slurm array script packing
// `pointsPerTask` points per array task. Both return the file written.
std::string emitParallel(const std::string& dir, const std::string& self);
std::string emitSlurm(const std::string& dir, const std::string& self, int pointsPerTask);

} // namespace steprdu::tb
