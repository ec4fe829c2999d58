#pragma once
// The placement problem as cells and nets. A cell is one physical unit a placement occupies: a PCU or PMU
// site (shared by the operators folded onto it and by a Streamify and its Bufferize), or one of an off-chip
// operator's AGCUs (an AGCU hosts many). A net is a leg of one lane of a stream on the fabric, producer unit
// to consumer unit or stage PMU, and stage PMU to consumer; a Broadcast's legs form one multicast net; the
// units of one compute group or buffer form a net of their own. Its rate is the bandwidth it carries in bytes
// per cycle (the lowering's rate model), what routing loads links with; its weight, the pull placement gives
// it, is the same but at least a tenth of a link, so that control-only nets stay short.
#include <algorithm>
#include <string>
#include <vector>

#include "hw/config/HwConfig.h"
#include "hw/pnr/Lowering.h"
#include "hw/pnr/Placement.h"
#include "step_ops/Graph.h"

namespace steprdu::hw::pnr {

struct Cell {
    Site site;
};

struct Net {
    std::vector<int> cells;   // cells[0] is the source
    std::vector<LegKey> legs; // per sink (cells[1..]); empty for a group net
    double weight = 0;        // bytes per cycle, for placement
    double rate = 0;          // bytes per cycle, for routing
    std::string name;
    bool group = false; // the units of one compute group or buffer
    int phase = -1;     // the phase its producer runs in (VirtualUnits::phase), -1 for the whole run
    int op = -1;        // the operator whose output it carries (-1 for a group)
};

struct Netlist {
    std::vector<Cell> cells;
    std::vector<Net> nets;
    std::vector<std::vector<int>> netsOf;     // per cell
    std::vector<std::vector<int>> opCells;    // per operator, per unit of its placement
    std::vector<std::vector<int>> stageCells; // per stage of the placement, per PMU
    int phases = 0;                           // nets of different phases never carry data at once
    // Per drain phase (VirtualUnits::drain): its cycles, what one AGCU's window moves, and per operator its
    // rate as a multiple of the planned one.
    std::vector<double> drainCycles, drainWindowBytes;
    std::vector<std::vector<double>> drainScale;
};

// An AGCU port's load in its capacities: `out` and `in` bytes per cycle each over a link, and both together
// over what its window of bursts moves per cycle.
inline double agcuPortLoad(double out, double in, double link, double window) {
    return std::max({out / link, in / link, (out + in) / window});
}

// The cells and nets of `p`; `p` itself is left unchanged.
Netlist buildNetlist(const step::Graph& g, const HwConfig& cfg, const Placement& p, const VirtualUnits& v);
// Writes the cells' sites back into the placement they were built from.
void applyNetlist(const step::Graph& g, const Netlist& nl, Placement& p);

} // namespace steprdu::hw::pnr
