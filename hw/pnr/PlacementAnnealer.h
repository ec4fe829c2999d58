#pragma once
// Simulated annealing of a placement (hardware-and-pnr.md 6.2, the VPR schedule): a move swaps two PCU or
// PMU cells, moves one to a free site of its kind, or moves an off-chip operator's AGCU cell to another AGCU
// (joining the cells there or swapping with one of them), within a window that shrinks as fewer moves are
// accepted. The cost is
//   sum over nets of  w_n x (HPWL_n + d2d x die crossings of its box)        bandwidth-weighted wirelength
//   + lambda_cong x sum over bins of max(0, D_b - cap_b)^2 / cap_b          estimated congestion (RUDY)
//   + lambda_cong x G x sum over AGCU ports of (o_p + o_p^2), o_p = max(0, L_p - 1)   shared AGCU ports
// with w_n in links' worth (bytes per cycle over the flit width). D_b is a RUDY estimate of the
// link demand in a bin of switches: each net spreads w_n x (HPWL_n + 1) evenly over its bounding box; a bin
// of s switches offers cap_b = 2s links' worth. L_p is the larger of what an AGCU sends and what it takes
// over a link (agcuLinkBytesPerCycle), and of both together over what its window of bursts moves in a round
// trip to the memory: each cell's planned rate times pnr.lane_headroom, a link at most, G the grid's longer
// side: a port two full
// streams share halves both, which no wire length makes up for. Where off-chip bandwidth bounds the run, L_p
// is the port's load in the busiest phase of the drain (VirtualUnits::drain) instead, each cell at its
// operator's rate in that phase: two operators that move the most share a port badly at the end of the run,
// when the others have finished. Every term is updated incrementally for the
// nets a move touches. Deterministic for a given seed.
#include <cstdint>

#include "hw/arch/ChipLayout.h"
#include "hw/config/HwConfig.h"
#include "hw/pnr/Netlist.h"

namespace steprdu::hw::pnr {

struct AnnealStats {
    double initialCost = 0, finalCost = 0;
    double initialWirelength = 0, finalWirelength = 0; // the first term alone
    std::int64_t moves = 0, accepted = 0;
    int temperatures = 0;
};

class PlacementAnnealer {
  public:
    PlacementAnnealer(const HwConfig& cfg, Netlist& nl);
    // Anneals the netlist's cells in place.
    AnnealStats run();
    // The cost terms of the netlist as it is.
    double cost() const;
    double wirelength() const;

  private:
    struct Box {
        int r0, r1, c0, c1;
    };
    // Recomputes every incremental structure from the cells' sites.
    void rebuild();
    Box boxOf(int net) const;
    double netCost(const Box& b, int net) const;
    // Adds (sign +1) or removes (-1) a net's RUDY demand.
    void spread(const Box& b, int net, double sign);
    double binPenalty(double demand, int bin) const;
    double uniform();
    std::uint64_t below(std::uint64_t n);
    // Proposes and evaluates one move; applies it if accepted at temperature `t`. Returns the cost change
    // (0 if rejected).
    double tryMove(double t, int window, bool* accepted);

    HwConfig cfg_;
    ChipLayout layout_;
    Netlist& nl_;
    int binSize_ = 4, binRows_, binCols_;
    std::vector<double> binCapacity_; // per bin: two links' worth per switch in it
    double d2d_ = 4, lambdaCong_;
    std::vector<int> siteCell_;  // per grid site: the PCU/PMU cell on it, or -1
    std::vector<int> movable_;   // the PCU and PMU cells
    std::vector<int> agcuCells_; // the off-chip operators' cells
    // Per AGCU cell and phase of the drain (one phase without a drain): bytes per cycle it sends into the
    // fabric and takes from it; per AGCU and phase: the sums over its cells. A port carries a link each way
    // (link_) and its window both ways together (window_, per phase).
    int phases_ = 1;
    double link_ = 0;
    std::vector<double> window_;
    std::vector<double> phaseWeight_; // per phase: its cycles over the longest phase's
    std::vector<double> cellOut_, cellIn_, portOut_, portIn_;
    std::vector<std::vector<int>> agcuHosts_; // per AGCU: its cells
    std::vector<int> agcuOp_;                 // per AGCU cell: the first operator placed on it
    double portPenalty(double load) const;
    double portCost(int agcu, int joins, int leaves) const;
    std::vector<double> demand_; // per bin
    std::vector<double> netCost_;
    std::vector<double> linkWeight_; // per net: its weight in links' worth (bytes per cycle over the flit)
    std::vector<Box> box_;
    std::uint64_t state_;
    // Scratch of tryMove.
    std::vector<int> touched_, touchedBins_;
    std::vector<Box> newBox_; // per touched net
    std::vector<double> savedDemand_;
    std::vector<int> binColumns_; // spread(): the box's columns in each bin column
    std::vector<int> mark_, binMark_;
    int stamp_ = 0, binStamp_ = 0;
};

} // namespace steprdu::hw::pnr
