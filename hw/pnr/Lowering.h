#pragma once
// Lowering a STeP graph into virtual units (hardware-and-pnr.md 6.1): each operator gets the hardware it
// runs on and how much of it. Compute operators get ceil(compute_bw / PCU peak) PCUs (routing and merging
// operators one); logical tiles are cut into the PCU's physical tiles by the PCU's cost model, not here.
// Buffers (Bufferize, RepeatStatic, Expand) get PMUs by capacity (double-buffered) and bandwidth; a stream
// from a memory-writing producer (off-chip loads, write_back_mu operators) into a compute operator gets a
// stage buffer of PMUs by the same rules; off-chip operators and Sources go to AGCUs; shape operators,
// Broadcast and Sink fold into their producer's unit (a local hop, rdn.local_hop_cycles).
//
// Bandwidth needs a rate: every stream is assumed to flow over the run's lower bound T, the larger of the
// off-chip bytes at the memory's peak and the busiest operator's FLOPs at its PCUs' peak (or, for the
// operators of a phase that runs on its own, over that phase's T). Rates take
// data-dependent sizes as the run averages them (rateBindings), capacities as the largest they get.
//
// A stream between two units is carried by lanes, each its own flow on the fabric (flit_bytes wide): as many
// as pnr.lane_headroom x its rate needs, at most as many as the units at either end (a compute group's PCUs,
// a buffer's PMUs). Lane j runs from the producer's unit j to the consumer's unit j, through PMU j of a stage
// buffer, which gets a PMU per lane. An off-chip operator gets as many AGCUs as its widest stream has lanes
// and spreads each tile's bursts over them. A Broadcast's outputs are one multicast per lane, as many lanes
// as its widest output gets (a narrower consumer takes several on one unit); a stream on one unit keeps one.
//
// The fit check compares the totals with the grid: `error` throws BadInput naming the resource, demand and
// capacity and the largest consumers; `shrink` takes PCUs away from the largest compute groups, one at a
// time, until the graph fits, and records what it changed (PMU capacity cannot shrink). When every compute
// operator is down to one PCU and the graph still does not fit, `shrink` lets two operators share a PCU: an
// operator joins the PCU of one of its producers (time-shared: the PCU does one's work, then the other's),
// the pairs with the least work together first, so the PCU that slows most slows least.
#include <map>
#include <string>
#include <vector>

#include "hw/arch/ChipLayout.h"
#include "hw/config/HwConfig.h"
#include "step_ops/Graph.h"

namespace steprdu::hw::pnr {

enum class Role { Agcu, Pcu, Pmu, Folded };

struct LoweringOptions {
    int timingElemBytes = 0;       // bytes the fabric moves per f32 element (0 = native)
    std::int64_t channelDepth = 2; // elements a stream holds, unless its producer has its own
    std::map<std::string, std::int64_t> depthByProducer;
    step::Bindings bindings;     // data-dependent sizes (buffers take the largest)
    step::Bindings rateBindings; // overrides for rates: sizes as the run averages them
    // Name prefixes of operator groups that run one after another (a decoder layer's parts, each waiting for
    // the previous one's results): a group's streams are planned over the group's own lower bound, not the
    // whole run's. Operators in no group use the whole run's.
    std::vector<std::string> phases;
};

// What lowering decides once for placement, the netlist and routing to read.
struct VirtualUnits {
    std::vector<Role> role; // per operator: the hardware it runs on
    // Per operator: the operator whose hardware produces what reaches its input (folded operators pass data
    // through), itself for the others.
    std::vector<int> origin;
    std::vector<std::vector<double>> outputBytes;    // per operator and output: bytes over the run
    std::vector<std::vector<double>> outputElements; // per operator and output: elements over the run
    std::vector<int> pcus, pmus;                     // per operator
    std::vector<int> sharesWith; // per operator: the operator whose PCU it shares (`shrink`), -1 for none
    std::vector<std::vector<int>> stagePmus; // per operator and input port: its stage buffer's PMUs (0: none)
    std::vector<std::vector<int>> lanes;     // per operator and output: lanes of the stream (1 at least)
    std::vector<int> agcus;                  // per operator: AGCUs of an off-chip operator (0: other roles)
    double runCycles = 1;                    // the rate model's lower bound T
    std::vector<double> opCycles; // per operator: the T its streams flow over (its phase's, else runCycles)
    std::vector<int> phase;       // per operator: its phase (LoweringOptions::phases), -1 for none
    int phases = 0;
    // The drain (docs/cycle.md): operators run as fast as they can, not at their planned pace, so where the
    // off-chip bandwidth bounds a run (or phase) the off-chip operators with less to move finish first and
    // leave the memory to the others, which then move faster than planned. Its phases in order, each with
    // every operator's rate as a multiple of the planned one (0 once it has finished); empty when no group of
    // operators is bound by off-chip bandwidth.
    struct DrainPhase {
        double cycles = 0;
        double windowBytes = 0;    // bytes per cycle one AGCU's window moves, reads and writes together
        std::vector<double> scale; // per operator
    };
    std::vector<DrainPhase> drain;
    // Bytes per cycle the rate model plans for output `out` of operator `op`.
    double rate(int op, int out) const { return outputBytes[op][out] / opCycles[op]; }
    std::vector<std::string> shrunk; // `shrink`: one line per operator it gave fewer PCUs or a shared one
    int total(UnitKind k) const;
    // Units at an operator's own end of its streams: its PCUs, PMUs or AGCUs.
    int unitsOf(int op) const;
};

VirtualUnits lower(const step::Graph& g, const HwConfig& cfg, const LoweringOptions& o);

} // namespace steprdu::hw::pnr
