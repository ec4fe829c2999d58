#pragma once
// The place-and-route pipeline (hardware-and-pnr.md 6): lower the graph into virtual units and check that
// it fits (Lowering), place them constructively (ConstructivePlacement), refine by simulated annealing
// (PlacementAnnealer), route every leg over the mesh by negotiated congestion (CongestionRouter), and move
// the ends of streams on links left over-subscribed (CongestionRepair), routing again. The chip is
// elaborated from the result: the units' sites, and each leg's route. On the ideal network
// (rdn.topology: ideal) every stream has a link of its own, so placement does not matter there and neither
// annealing nor routing runs. The report is pnr.json; Floorplan.h draws it.
#include <string>

#include <nlohmann/json.hpp>

#include "hw/config/HwConfig.h"
#include "hw/pnr/CongestionRouter.h"
#include "hw/pnr/Lowering.h"
#include "hw/pnr/Netlist.h"
#include "hw/pnr/Placement.h"
#include "step_ops/Graph.h"

namespace steprdu::hw::pnr {

struct PnrResult {
    Placement placement;
    Netlist netlist;
    Routing routing;
    nlohmann::json report;
};

PnrResult placeAndRoute(const step::Graph& g, const HwConfig& cfg, const LoweringOptions& o);

} // namespace steprdu::hw::pnr
