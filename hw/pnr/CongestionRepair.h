#pragma once
// Placement repair after routing. Annealing sees congestion only as a density over bins of switches, so it
// can leave two full-rate streams on one link where no route avoids the other: the legs of a unit's
// broadcast that run along one row, say. The router cannot mend that; moving one end can. For the most
// over-subscribed link first (of those loaded 1.5 times their bandwidth or more), each PCU or PMU at an end
// of a stream on it tries every site of its kind within a few switches (moving there, or swapping with the
// unit there); its streams are rerouted on the cheaper of their legal routes (CongestionRouter's options)
// against the other streams' planned loads, and the move that lowers the sum over links of max(0, load /
// bandwidth - 1)^2 the most is made, a link's load being its busiest phase's (LinkLoads). A link no move
// relieves is left as it is. Deterministic: candidates are tried in a fixed order, the first best wins.
#include "hw/arch/ChipLayout.h"
#include "hw/config/HwConfig.h"
#include "hw/pnr/CongestionRouter.h"
#include "hw/pnr/Netlist.h"

namespace steprdu::hw::pnr {

struct RepairStats {
    int moves = 0;     // cells moved (a swap counts once)
    int evaluated = 0; // candidate moves evaluated
    double before = 0; // the over-subscription sum of `routing` as given
    double after = 0;  // the same after the moves, on the repair's own routes
};

class CongestionRepair {
  public:
    // `routing` is the netlist's routing as it is; the repair moves the netlist's cells.
    CongestionRepair(const HwConfig& cfg, Netlist& nl, const Routing& routing);
    RepairStats run();

  private:
    double penalty(double load) const;
    // Removes (sign -1) or adds (+1) a net's tree to the loads, recording each link's first change.
    void apply(int net, double sign);
    // Routes a net's legs on the cheaper legal route each against the loads as they are; sets its tree.
    void route(int net);
    // The change in the penalty sum of moving `cell` to (row, col), swapping with the cell there; the move
    // is undone unless `keep`.
    double tryMove(int cell, int row, int col, bool keep);

    const HwConfig& cfg_;
    Netlist& nl_;
    ChipLayout layout_;
    int rows_, cols_;
    double capacity_;
    LinkLoads load_;                       // bytes per cycle at the streams' planned rates
    std::vector<std::vector<int>> tree_;   // per net, the links its legs use (each once)
    std::vector<int> siteCell_;            // per PCU or PMU site, its cell or -1
    std::vector<int> mark_, touchedLinks_; // scratch of tryMove: links changed, with their loads before
    std::vector<double> saved_;            // (LinkLoads::buckets per touched link)
    int stamp_ = 0;
};

} // namespace steprdu::hw::pnr
