#pragma once
// A graph too large for the chip cut into sections that run one after another (pnr.on_overflow=sections),
// as the SN40L compiler cuts a graph that does not fit a socket. Sections are cut between the workload's
// parts (Workload::phases, in order), as many consecutive parts per section as place and route fits. A
// stream crossing a cut is either
//   - the one-element completion signal a load waits for (its `ref`): dropped, since the next section starts
//     after the one before has finished; or
//   - a stream of tiles of a static shape: stored to HBM by its section (tensor "cut.<op>.<output>") and
//     loaded back, tile for tile in the same order, by the next.
// Any other crossing stream is refused, naming it. Operators outside every part go with their inputs'
// latest part (those without inputs with their consumers' earliest). A part too large for the chip on its
// own is a section of its own, shrunk (pnr.on_overflow=shrink) as the whole graph would have been.
#include <string>
#include <vector>

#include "hw/config/HwConfig.h"
#include "testbenches/Testbench.h"

namespace steprdu::tb {

struct Section {
    std::vector<std::string> phases; // the parts it runs
    nlohmann::json graph;            // steprdu-graph-1, with the cut tensors, stores and loads
    std::int64_t cutBytes = 0;       // bytes stored for the sections after it (f32 tiles at 4 B)
    bool shrink = false; // one part too large for the chip alone: run it as pnr.on_overflow=shrink
};

// Whether the workload fits the chip as it is (place and route's lowering, an overflow an error); rethrows
// the error of an operator larger than the chip by itself, which no cut helps.
bool fitsChip(const Workload& w, const hw::HwConfig& cfg);

// Throws BadInput if the workload has no parts, a crossing stream can be neither dropped nor stored, or an
// operator alone is larger than the chip.
std::vector<Section> cutIntoSections(const Workload& w, const hw::HwConfig& cfg);

// The section's graph file with tensor values from `values`, by name, where given.
nlohmann::json sectionGraph(const Section& s, const std::map<std::string, std::vector<float>>& values = {});
// The workload of a section's graph file: the workload's bindings, depths and timing settings.
Workload sectionWorkload(const Workload& w, const Section& s, const nlohmann::json& graph);

} // namespace steprdu::tb
