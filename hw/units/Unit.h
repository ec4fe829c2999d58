#pragma once
// A hardware unit of the chip (PCU, PMU or AGCU): a SystemC module at a grid site that hosts operator
// processes and turns their work into time on its own resources. The operators' token logic is theirs
// (step_ops); the unit decides how long each piece of work takes and when its result is ready.
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "hw/arch/ChipLayout.h"
#include "hw/config/HwConfig.h"
#include "hw/sim/SimTime.h"
#include "hw/sim/Stats.h"
#include "step_ops/OpIO.h"
#include "step_ops/Token.h"

namespace steprdu::hw {

class OperatorProcess;

struct WorkDone {
    Cycle done = 0;  // the unit is free again and the operator moves on
    Cycle ready = 0; // the result may enter the fabric (done plus the pipeline's latency)
};

class Unit : public sc_core::sc_module {
  public:
    Unit(sc_core::sc_module_name name, UnitKind kind, const HwConfig& cfg);

    UnitKind unitKind() const { return kind_; }
    int endpoint() const { return endpoint_; }
    void setEndpoint(int e) { endpoint_ = e; }
    const HwConfig& config() const { return cfg_; }

    // Times `w`, which `op` starts now; the operator's thread waits until `done`.
    virtual WorkDone perform(OperatorProcess& op, const step::Work& w) = 0;
    // An off-chip access (AGCUs only): may block the operator's thread (window, tiles in flight).
    virtual void offChip(OperatorProcess& op, const step::OffChipAccess& a);
    // Called when `op` sends a data token (PMUs check buffer allocations).
    virtual void sent(OperatorProcess& op, const step::Token& t, std::int64_t bytes) {}
    // Blocks until everything `op` started on this unit has completed (AGCU writes in flight).
    virtual void drain(OperatorProcess& op) {}
    virtual void reportStats(StatsRegistry& stats, Cycle elapsed) const {}

    void host(OperatorProcess* op) { hosted_.push_back(op); }
    const std::vector<OperatorProcess*>& hosted() const { return hosted_; }
    // The module path as stats and messages name it, e.g. "chip.pcu_r3c7".
    std::string path() const { return name(); }

  protected:
    UnitKind kind_;
    HwConfig cfg_; // with this unit's own overrides applied
    int endpoint_ = -1;
    std::vector<OperatorProcess*> hosted_;
};

// Constructs a module as a child of `parent` after `parent` has finished its own construction (an operator
// process under its host unit).
template <class T, class... A> std::unique_ptr<T> makeChild(sc_core::sc_module& parent, A&&... args) {
    auto* ctx = sc_core::sc_get_curr_simcontext();
    ctx->hierarchy_push(&parent);
    auto m = std::make_unique<T>(std::forward<A>(args)...);
    ctx->hierarchy_pop();
    return m;
}

} // namespace steprdu::hw
