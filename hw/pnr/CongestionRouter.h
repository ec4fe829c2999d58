#pragma once
// Routing over the switch mesh by negotiated congestion (PathFinder, hardware-and-pnr.md 6.3). Each leg of
// a net goes along the row first (XY) or along the column first (YX); under the west-first turn model a leg
// that heads west must go west first, so only legs heading east or along one column have the choice. Every
// route is then a west-first route and the channel dependency graph of all of them is acyclic: the mesh
// needs no virtual channels to stay free of routing deadlock. A multicast net is the union of its legs;
// a link it shares counts once. Links carry flit_bytes per cycle each way; nets carry their rate-model
// bandwidth. Each round routes every net (later rounds only those on an over-subscribed link) at the
// cheapest option, a link costing (1 + history) x (1 + pf x its over-subscription); history grows on
// over-subscribed links and pf by 1.5 per round. Over-subscription that remains is accepted and reported:
// links are shared, and the simulation shows the contention. A switch whose routing table would hold more
// flows than rdn.flow_table_entries has no route: BadInput naming the switch and the flow.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/arch/ChipLayout.h"
#include "hw/config/HwConfig.h"
#include "hw/pnr/Netlist.h"

namespace steprdu::hw::pnr {

struct RoutedLeg {
    int net = -1, sink = 0; // sink: index into the net's legs
    bool columnFirst = false;
    std::vector<int> links; // mesh links (switch x 4 + direction N, E, S, W)
};

struct Routing {
    std::vector<RoutedLeg> legs;
    // Per mesh link, bytes per cycle: as negotiated (each net at its placement weight, at least a tenth of a
    // link, so that light legs keep clear of heavy ones), and as planned (each net at its rate).
    std::vector<double> load, planned;
    int iterations = 0, overused = 0, maxFlowTable = 0;
    double capacity = 0; // bytes per cycle per link
    int cols = 0;        // of the switch grid, to name links
    // The channel dependency graph of every route has no cycle.
    bool deadlockFree() const;
    // Planned load in link bandwidths: the busiest link's, and summed over the links used.
    double maxLinkLoad() const;
    double totalLinkLoad() const;
    nlohmann::json report(const Netlist& nl) const;
};

Routing routeNets(const HwConfig& cfg, const Netlist& nl);

} // namespace steprdu::hw::pnr
