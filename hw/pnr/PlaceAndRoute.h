#pragma once
// The place-and-route pipeline (hardware-and-pnr.md 6): lower the graph into virtual units and check that
// it fits (Lowering), place them constructively (ConstructivePlacement), refine by simulated annealing
// (PlacementAnnealer), route every leg over the mesh by negotiated congestion (CongestionRouter), and move
// the ends of streams on links left over-subscribed (CongestionRepair), routing again. The chip is
// elaborated from the result: the units' sites, and each leg's route. On the ideal network
// (rdn.topology: ideal) every stream has a link of its own, so placement does not matter there and neither
// annealing nor routing runs. The report is pnr.json; Floorplan.h draws it.
#include <string>
#include <vector>

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

// The report carries the placement ("placement", Placement::toJson).
PnrResult placeAndRoute(const step::Graph& g, const HwConfig& cfg, const LoweringOptions& o);
// The `keep` best of the annealer's starts (pnr.starts) in the order their routes predict, best first: each
// with its report, whose "seed" is its start's. placeAndRoute keeps the first.
std::vector<PnrResult> placeAndRouteRanked(const step::Graph& g, const HwConfig& cfg,
                                           const LoweringOptions& o, int keep);

// The placement of an earlier place and route of the same graph, reused as it is: nothing is lowered,
// placed or routed, so lanes, planned rates and credits are those of the configuration it was made with.
// `report` is its pnr.json (or a run's result.json holding one under "pnr"); the result's report is that
// one without its placement, marked "reused_from": `where`. BadInput naming `where` if it does not fit.
PnrResult reusePlacement(const step::Graph& g, const HwConfig& cfg, const nlohmann::json& report,
                         const std::string& where);

} // namespace steprdu::hw::pnr
