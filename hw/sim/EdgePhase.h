#pragma once
// The edge of a cycle: components whose same-cycle decisions must see every request of that cycle (the RDN
// mesh's arbitration, as a switch samples its inputs at the clock edge) run once every other process of
// the cycle has run, in the order they were added. One process serves them all, so that no two of them wait
// for each other to finish the cycle first.
#include <functional>
#include <vector>

#include <systemc>

#include "hw/sim/SimTime.h"

namespace steprdu::hw {

class EdgePhase : public sc_core::sc_module {
  public:
    // The simulation's edge phase, created on first use, which must be during elaboration (each simulation
    // elaborates in a process of its own).
    static EdgePhase& get();
    // The event the components' calendars notify for the cycles they are due at.
    sc_core::sc_event& event() { return wake_; }
    // `due`: the component has work at the current cycle, which `run` does; `next`: its next cycle.
    void add(std::function<bool()> due, std::function<void()> run, std::function<Cycle()> next);

  private:
    SC_HAS_PROCESS(EdgePhase);
    explicit EdgePhase(sc_core::sc_module_name name);
    void process();

    struct Component {
        std::function<bool()> due;
        std::function<void()> run;
        std::function<Cycle()> next;
    };
    sc_core::sc_event wake_;
    std::vector<Component> components_;
};

} // namespace steprdu::hw
