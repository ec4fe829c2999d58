#pragma once
// The constructive start of placement (hardware-and-pnr.md 6.2): virtual units taken in graph order onto
// sites filled die by die, tile by tile, and within a tile in 4 x 4 blocks in serpentine order, a stream's
// stage PMUs just before its consumer, so that neighbours in the graph land near each other. Off-chip
// operators and Sources then go to the AGCU that would deliver their data soonest (assignAgcus); folded
// operators run on their producer's unit. The annealer (PlacementAnnealer) refines it.
#include "hw/config/HwConfig.h"
#include "hw/pnr/Lowering.h"
#include "hw/pnr/Placement.h"
#include "step_ops/Graph.h"

namespace steprdu::hw::pnr {

Placement placeConstructive(const step::Graph& g, const HwConfig& cfg, const VirtualUnits& v,
                            const step::Bindings& bindings);
// Gives each off-chip operator and Source the AGCU from which its data would arrive soonest, given where its
// consumer (or producer) is placed: the cycles already booked on the AGCU's port and on its route's links,
// its own bytes, and two cycles per hop. The annealer moves them on from there with the units.
void assignAgcus(const step::Graph& g, const HwConfig& cfg, const VirtualUnits& v,
                 const step::Bindings& bindings, Placement& pl);

} // namespace steprdu::hw::pnr
