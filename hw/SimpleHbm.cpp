#include "hw/SimpleHbm.h"

#include "hw/Unit.h"

namespace steprdu::hw {

namespace {
roofline::HbmParams params(const HbmConfig& c, bool stepCompat) {
    roofline::HbmParams p;
    p.requestBytes = c.request_bytes;
    p.channels = c.channels;
    p.latency = c.latency_cycles;
    p.initInterval = c.init_interval_cycles;
    p.startup = c.startup_cycles;
    p.startupEveryRequest = stepCompat;
    p.triangularOffset = stepCompat;
    return p;
}
} // namespace

SimpleHbm::SimpleHbm(sc_core::sc_module_name name, const HbmConfig& cfg, bool stepCompat)
    : sc_core::sc_module(name), cfg_(cfg), node_(params(cfg, stepCompat)) {
    SC_METHOD(process);
    sensitive << wake_;
    dont_initialize();
}

void SimpleHbm::submit(int client, bool write, Cycle issue, std::int64_t requests, int par,
                       std::function<void(Cycle)> done) {
    node_.submit(client, write, issue, requests, par, std::move(done));
    Cycle next = node_.nextCycle();
    if (next != kNever) notifyAt(wake_, next);
}

// Every client's packets for this cycle were submitted in earlier cycles (a packet becomes visible at least
// one cycle after its issue), so the node may process the cycles up to now.
void SimpleHbm::process() {
    try {
        while (node_.nextCycle() <= now())
            node_.advanceTo(now());
    } catch (...) {
        failSimulation(std::current_exception());
    }
    Cycle next = node_.nextCycle();
    if (next != kNever) notifyAt(wake_, next);
}

void SimpleHbm::reportStats(StatsRegistry& stats) const {
    stats.add(name(), "requests", static_cast<double>(node_.stats().requests));
    stats.add(name(), "bytes", static_cast<double>(node_.stats().requests) * cfg_.request_bytes);
}

} // namespace steprdu::hw
