#include "hw/units/Agcu.h"

#include <algorithm>

#include "hw/mem/TensorLayout.h"
#include "hw/units/OperatorProcess.h"
#include "util/Timeline.h"

namespace steprdu::hw {

Agcu::Agcu(sc_core::sc_module_name name, const HwConfig& cfg, int index,
           const std::vector<std::unique_ptr<OffChipMemory>>& tiers, const step::Graph& graph, MemoryMap& map)
    : Unit(name, UnitKind::Agcu, cfg), index_(index), graph_(graph), map_(map) {
    for (const auto& t : tiers)
        tiers_.push_back(t.get());
    // A slot of the window frees when the response is back at the AGCU; a request issued then reaches the
    // memory's front end a TLN crossing and one hop later.
    for (OffChipMemory* t : tiers_)
        if (t)
            t->setWindow(index_, cfg_.agcu.max_outstanding, cfg_.agcu.burst_bytes,
                         2 * cfg_.agcu.tln_latency_cycles + 1);
}

int Agcu::OpState::inFlight(Cycle t) {
    returns.erase(std::remove_if(returns.begin(), returns.end(), [t](Cycle c) { return c <= t; }),
                  returns.end());
    return unanswered + static_cast<int>(returns.size());
}

void Agcu::OpState::waitBelow(int limit) {
    while (inFlight(now()) >= limit) {
        if (returns.empty())
            sc_core::wait(known);
        else
            waitUntil(*std::min_element(returns.begin(), returns.end()));
    }
}

Agcu::OpState& Agcu::state(OperatorProcess& op) {
    for (auto& s : ops_)
        if (s->op == &op) return *s;
    ops_.push_back(std::make_unique<OpState>());
    ops_.back()->op = &op;
    return *ops_.back();
}

WorkDone Agcu::perform(OperatorProcess&, const step::Work&) {
    return {now(), now()}; // sources and folded operators do no work of their own here
}

void Agcu::offChip(OperatorProcess& op, const step::OffChipAccess& a) {
    OpState& s = state(op);
    const Cycle t0 = now();
    s.waitBelow(cfg_.agcu.tiles_in_flight);
    op.addMemoryStall(now() - t0);
    const auto& tensor = graph_.tensor(a.tensor);
    const int burst = cfg_.agcu.burst_bytes;
    const auto [blockRows, blockCols] = map_.block(a.tensor, tensor, a.rows, a.cols);
    std::vector<ByteRange> ranges = mem::burstRanges(
        tensor, map_.base(a.tensor), a, burst, static_cast<int>(blockRows), static_cast<int>(blockCols));
    (a.write ? writeBursts_ : readBursts_) += mem::burstCount(ranges, burst);
    bytes_ += a.bytes();
    int par = std::max(1, std::min({a.parDispatch, cfg_.agcu.bursts_per_cycle, cfg_.agcu.max_outstanding}));
    int ticket = nextTicket_++;
    ++s.unanswered;
    if (!a.write) op.holdNextDataFor(ticket);
    const Cycle tln = cfg_.agcu.tln_latency_cycles;
    OpState* sp = &s;
    auto* tier = tiers_[map_.tier(a.tensor)];
    tier->submit(
        index_, a.write, now() + tln, ranges, burst, par,
        [sp, ticket, tln, write = a.write, tier, issued = now() + tln, bytes = a.bytes()](Cycle back) {
            if (auto* tl = Timeline::active())
                tl->rate("memory", tier->path() + (write ? " write" : " read"), issued, back,
                         static_cast<double>(bytes));
            --sp->unanswered;
            sp->returns.push_back(back + tln);
            sp->known.notify(sc_core::SC_ZERO_TIME);
            if (!write) sp->op->ticketDone(ticket, back + tln);
        });
}

void Agcu::drain(OperatorProcess& op) {
    OpState& s = state(op);
    const Cycle t0 = now();
    s.waitBelow(1); // the last acknowledgement is back over the TLN
    op.addMemoryStall(now() - t0);
}

void Agcu::reportStats(StatsRegistry& stats, Cycle) const {
    stats.add(path(), "read_bursts", static_cast<double>(readBursts_));
    stats.add(path(), "write_bursts", static_cast<double>(writeBursts_));
    stats.add(path(), "offchip_bytes", static_cast<double>(bytes_));
}

} // namespace steprdu::hw
