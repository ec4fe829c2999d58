#include "hw/sim/EdgePhase.h"

#include <algorithm>

namespace steprdu::hw {

EdgePhase& EdgePhase::get() {
    static EdgePhase* phase = new EdgePhase("edge"); // lives as long as the simulation's other modules
    return *phase;
}

EdgePhase::EdgePhase(sc_core::sc_module_name name) : sc_core::sc_module(name) {
    SC_METHOD(process);
    sensitive << wake_;
    dont_initialize();
}

void EdgePhase::add(std::function<bool()> due, std::function<void()> run, std::function<Cycle()> next) {
    components_.push_back({std::move(due), std::move(run), std::move(next)});
}

void EdgePhase::process() {
    // Another process still runs at this cycle (or an update or delta notification is pending): it may yet
    // send something the components must see.
    if (sc_core::sc_pending_activity_at_current_time()) return wake_.notify(sc_core::SC_ZERO_TIME);
    for (auto& c : components_)
        if (c.due()) c.run();
    // The event keeps only its earliest notification, so it is armed again for the earliest of them all.
    Cycle next = kNever;
    for (auto& c : components_)
        next = std::min(next, c.next());
    if (next != kNever) notifyAt(wake_, next);
}

} // namespace steprdu::hw
