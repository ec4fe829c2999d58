#include "hw/mem/StepNodeTier.h"

#include <algorithm>

#include "hw/sim/SimulationFailure.h"

namespace steprdu::hw {

mem::HbmParams stepNodeParams(const HwConfig& cfg) {
    const HbmConfig& c = cfg.hbm;
    mem::HbmParams p;
    p.requestBytes = c.request_bytes;
    p.channels = c.channels;
    p.latency = c.latency_cycles;
    p.initInterval = c.init_interval_cycles;
    p.startup = c.startup_cycles;
    p.startupEveryRequest = cfg.roofline.step_compat;
    p.triangularOffset = cfg.roofline.step_compat;
    return p;
}

StepNodeTier::StepNodeTier(sc_core::sc_module_name name, const HwConfig& cfg)
    : sc_core::sc_module(name), cfg_(cfg.hbm), node_(stepNodeParams(cfg)) {
    SC_METHOD(process);
    sensitive << wake_;
    dont_initialize();
}

void StepNodeTier::submit(int client, int source, bool write, Cycle issue, std::vector<ByteRange> ranges,
                          int burstBytes, int par, std::function<void(Cycle)> done) {
    std::int64_t requests = 0;
    for (const auto& r : ranges)
        requests += (r.bytes + burstBytes - 1) / burstBytes;
    requests_[write ? 1 : 0] += requests;
    if (requests == 0) { // answered at once, whatever else is queued
        node_.submit(client, write, issue, 0, par, std::move(done));
        return;
    }
    // The node counts requests only: the ranges are not kept.
    waiting_.add({issue, client, source, 0, write, {}, burstBytes, par, std::move(done), requests});
    schedule();
}

void StepNodeTier::schedule() {
    Cycle next = std::min(node_.nextCycle(), waiting_.empty() ? kNever : waiting_.earliest() + 1);
    if (next != kNever) notifyAt(wake_, next);
}

// Every client's packets for this cycle were submitted in earlier cycles (a packet becomes visible at least
// one cycle after its issue), so the node takes them, in canonical order, and may process the cycles up to
// now.
void StepNodeTier::process() {
    try {
        for (mem::PendingRequest& r : waiting_.takeBefore(now()))
            node_.submit(r.client, r.write, r.issue, r.requests, r.par, std::move(r.done));
        while (node_.nextCycle() <= now())
            node_.advanceTo(now());
    } catch (...) {
        failSimulation(std::current_exception());
    }
    schedule();
}

void StepNodeTier::reportStats(StatsRegistry& stats, Cycle elapsed) const {
    const double moved = static_cast<double>(requests_[0] + requests_[1]) * cfg_.request_bytes;
    stats.add(name(), "requests", static_cast<double>(node_.stats().requests));
    stats.add(name(), "bytes_read", static_cast<double>(requests_[0]) * cfg_.request_bytes);
    stats.add(name(), "bytes_written", static_cast<double>(requests_[1]) * cfg_.request_bytes);
    stats.add(name(), "achieved_bytes_per_cycle", moved / static_cast<double>(std::max<Cycle>(1, elapsed)));
    stats.add(name(), "peak_bytes_per_cycle", cfg_.peakBytesPerCycle());
}

} // namespace steprdu::hw
