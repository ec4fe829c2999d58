#pragma once
// Routing over the switch mesh by negotiated congestion (PathFinder, hardware-and-pnr.md 6.3). Each leg of
// a net goes along the row first (XY) or along the column first (YX); under the west-first turn model a leg
// that heads west must go west first, so only legs heading east or along one column have the choice. Every
// route is then a west-first route and the channel dependency graph of all of them is acyclic: the mesh
// needs no virtual channels to stay free of routing deadlock. A multicast net is the union of its legs;
// a link it shares counts once. Nets of different phases (a decoder layer's parts) share links freely. Links
// carry flit_bytes per cycle each way; nets carry their rate-model bandwidth. Each round routes every net
// (later rounds only those on an over-subscribed link) at the cheapest option, a link costing (1 + history) x
// (1 + pf x its over-subscription); history grows on over-subscribed links and pf by 1.5 per round.
// Over-subscription that remains is accepted and reported: links are shared, and the simulation shows the
// contention. A switch whose routing table would hold more flows than rdn.flow_table_entries has no route:
// BadInput naming the switch and the flow.
#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/arch/ChipLayout.h"
#include "hw/config/HwConfig.h"
#include "hw/pnr/Netlist.h"

namespace steprdu::hw::pnr {

// Bytes per cycle on each link, kept per phase: streams of phases that run one after another never carry
// data at the same time, so a link is as loaded as its streams in no phase plus its busiest phase's.
class LinkLoads {
  public:
    LinkLoads(int links, int phases)
        : buckets_(phases + 1), v_(static_cast<std::size_t>(links) * buckets_, 0.0) {}
    void add(int link, int phase, double bytes) {
        v_[static_cast<std::size_t>(link) * buckets_ + phase + 1] += bytes;
    }
    // The link's load at its busiest.
    double peak(int link) const { return peakOf(at(link), -1, 0); }
    // The load a stream of `phase` meets on the link with `bytes` more of its own.
    double seenBy(int link, int phase, double bytes) const;
    // The link's load at its busiest with `bytes` more in `phase`.
    double peakWith(int link, int phase, double bytes) const { return peakOf(at(link), phase, bytes); }
    // A link's loads, one per bucket: the streams in no phase, then each phase's.
    const double* at(int link) const { return &v_[static_cast<std::size_t>(link) * buckets_]; }
    double* at(int link) { return &v_[static_cast<std::size_t>(link) * buckets_]; }
    int buckets() const { return buckets_; }
    double peakOf(const double* loads, int phase, double bytes) const;

  private:
    int buckets_;
    std::vector<double> v_;
};

struct RoutedLeg {
    int net = -1, sink = 0; // sink: index into the net's legs
    bool columnFirst = false;
    std::vector<int> links; // mesh links (switch x 4 + direction N, E, S, W)
};

struct Routing {
    std::vector<RoutedLeg> legs;
    // Per mesh link, bytes per cycle at its busiest (LinkLoads::peak): as negotiated (each net at its
    // placement weight, at least a tenth of a link, so that light legs keep clear of heavy ones), and as
    // planned (each net at its rate).
    std::vector<double> load, planned;
    // Per phase of the drain (Netlist::drainScale): the busiest link's load in link bandwidths, each net at
    // its operator's rate in that phase.
    std::vector<double> drainPeak;
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

// A net's legs (indices into its sinks), nearest sink first, so that the far ones can share their links.
std::vector<int> sinksNearestFirst(const Netlist& nl, const Net& net);
// The routes a leg from (sr, sc) to (tr, tc) may take under `policy`: [0] along the row first, [1] along the
// column first (one of them when both are the same path).
std::array<bool, 2> legOptions(RoutePolicy policy, int sr, int sc, int tr, int tc);
// The mesh links (switch x 4 + direction) of that leg on a grid `cols` switches wide.
std::vector<int> legLinks(int cols, int sr, int sc, int tr, int tc, bool columnFirst);

} // namespace steprdu::hw::pnr
