#pragma once
// A first, simple placement so that the chip runs any graph (real place-and-route replaces it). Operators
// are taken in graph order: compute operators onto a group of ceil(compute_bw / PCU peak) PCUs (one for
// routing and merging operators); Bufferize, Streamify (with its buffer), RepeatStatic and Expand onto a PMU.
// Each kind of site is filled in 4 x 4 blocks taken in serpentine order, a stream's stage PMU just before
// its consumer, so neighbours in the graph land near each other. Then off-chip operators and Sources go to
// the AGCU nearest to the unit they feed (or are fed by), each AGCU taking an even share; shape, Broadcast
// and Sink operators fold onto their producer's unit. Routes are dimension order (RdnMesh).
#include <map>

#include "hw/HwConfig.h"
#include "hw/pnr/Placement.h"
#include "step_ops/Graph.h"

namespace steprdu::hw::pnr {

enum class Role { Agcu, Pcu, Pmu, Folded };
// The kind of hardware an operator kind runs on.
Role roleOf(const std::string& opKind);
// True if the operator's consumers read its results from a memory unit (loads, write_back_mu operators).
bool writesMemory(const step::Operator& op);

struct PlacementOptions {
    int timingElemBytes = 0;       // bytes the fabric moves per f32 element (0 = native)
    std::int64_t channelDepth = 2; // elements a stream holds, unless its producer has its own
    std::map<std::string, std::int64_t> depthByProducer;
    step::Bindings bindings; // data-dependent sizes, to size stage buffers
};

// Throws BadInput when the graph needs more PCUs or PMUs than the grid has, naming the largest consumers.
Placement placeFirst(const step::Graph& g, const HwConfig& cfg, const PlacementOptions& o);

} // namespace steprdu::hw::pnr
