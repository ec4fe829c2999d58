#pragma once
// Pattern compute unit: an output-stationary systolic array (rows x cols MACs, one K step per cycle) for
// matrix products, and a SIMD pipeline (lanes x stages) for element-wise functions, reductions and the
// routing and merging operators placed on it. An operator's virtual unit may span several PCUs (its
// compute_bw over the PCU peak); they share its work.
//
// Matmul [m,k] x [k,n] on g PCUs: the output splits into P = ceil(m/rows) x ceil(n/cols) physical tiles
// (STeP appendix B.2); each PCU computes its share one tile after another, k cycles each, so the array is
// busy ceil(P / g) x k cycles and the last result drains rows + cols cycles later. With fewer tiles than
// PCUs, K splits s = min(g / P, k) ways: busy ceil(P x s / g) x ceil(k / s), and the s partial tiles add up
// in a tree of ceil(log2 s) levels of `rows` cycles each. Element-wise work on E
// elements of o operations each: ceil(E / (lanes x g)) x ceil(o / stages) cycles, results after the
// pipeline latency; a row reduction adds a log2(lanes) cross-lane tree. Moving an element through (routing,
// merging): its bytes over lanes x 4 B per cycle. Two operators sharing a PCU (pnr `shrink`) take turns:
// each piece of work starts once the other's booked work is done.
#include "hw/units/Unit.h"

namespace steprdu::hw {

class Pcu : public Unit {
  public:
    Pcu(sc_core::sc_module_name name, const HwConfig& cfg) : Unit(name, UnitKind::Pcu, cfg) {}

    // The cost of `w` on a group of `units` PCUs: cycles the group is busy, cycles until the result.
    static WorkDone cost(const PcuConfig& c, const step::Work& w, int units);

    WorkDone perform(OperatorProcess& op, const step::Work& w) override;
    // Work of a group this PCU belongs to but does not host: every PCU of a group is busy while it works.
    void credit(Cycle busy) { busy_ += busy; }
    void reportStats(StatsRegistry& stats, Cycle elapsed) const override;

  private:
    Cycle busy_ = 0;
    Cycle sharedFree_ = 0; // when the time-shared operators' booked work ends
};

} // namespace steprdu::hw
