#include "hw/units/Agcu.h"

#include <algorithm>
#include <memory>

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
    SC_METHOD(passOn);
    sensitive << noticeDue_;
    dont_initialize();
}

void Agcu::passOn() {
    while (notices_.due())
        notices_.pop()();
    notices_.rearm();
}

int Agcu::OpState::inFlight(Cycle t) {
    returns.erase(std::remove_if(returns.begin(), returns.end(), [t](Cycle c) { return c <= t; }),
                  returns.end());
    return unanswered + static_cast<int>(returns.size());
}

void Agcu::OpState::waitBelow(int limit) {
    while (inFlight(now()) >= limit) {
        if (returns.empty()) {
            sc_core::wait(known);
            continue;
        }
        // Until the earliest known return, or until another tile is answered: responses come back out of
        // order, so that one may be back sooner.
        const Cycle first = *std::min_element(returns.begin(), returns.end());
        sc_core::wait(cycles(first - now()), known);
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
    int par = std::max(1, std::min({a.parDispatch, cfg_.agcu.bursts_per_cycle, cfg_.agcu.max_outstanding}));
    int ticket = nextTicket_++;
    ++s.unanswered;
    if (!a.write) op.holdNextDataFor(ticket);
    // The AGCUs the operator stripes over: this one and the rest of its group; each takes a run of bursts and
    // the matching share of the operator's bytes.
    std::vector<Agcu*> ports{this};
    for (Unit* u : op.group())
        ports.push_back(static_cast<Agcu*>(u));
    const std::int64_t bursts = mem::burstCount(ranges, burst);
    std::vector<std::vector<ByteRange>> runs;
    if (ports.size() > 1 && bursts > 0)
        runs = mem::splitBursts(ranges, burst, static_cast<int>(ports.size()));
    else
        runs.push_back(std::move(ranges)); // a row-major tile is thousands of ranges: not copied
    std::vector<std::size_t> used;
    for (std::size_t j = 0; j < runs.size(); ++j)
        if (!runs[j].empty() || j == 0) used.push_back(j);
    auto left = std::make_shared<std::size_t>(used.size());
    auto last = std::make_shared<Cycle>(0);
    OpState* sp = &s;
    const int tier = map_.tier(a.tensor);
    std::int64_t shared = 0;
    for (std::size_t j : used) {
        std::int64_t share = a.bytes() - shared;
        if (j != used.back()) share = a.bytes() * mem::burstCount(runs[j], burst) / bursts;
        shared += share;
        ports[j]->issue(tier, op.index(), a.write, std::move(runs[j]), share, par,
                        [sp, ticket, write = a.write, left, last](Cycle back) {
                            *last = std::max(*last, back);
                            if (--*left > 0) return;
                            --sp->unanswered;
                            sp->returns.push_back(*last);
                            sp->known.notify(sc_core::SC_ZERO_TIME);
                            if (!write) sp->op->ticketDone(ticket, *last);
                        });
    }
}

void Agcu::issue(int tierIndex, int source, bool write, std::vector<ByteRange> ranges, std::int64_t bytes,
                 int par, std::function<void(Cycle)> done) {
    const int burst = cfg_.agcu.burst_bytes;
    (write ? writeBursts_ : readBursts_) += mem::burstCount(ranges, burst);
    bytes_ += bytes;
    const Cycle tln = cfg_.agcu.tln_latency_cycles;
    auto* tier = tiers_[tierIndex];
    tier->submit(index_, source, write, now() + tln, std::move(ranges), burst, par,
                 [this, done = std::move(done), tln, write, tier, issued = now() + tln, bytes](Cycle back) {
                     if (auto* tl = Timeline::active())
                         tl->rate("memory", tier->path() + (write ? " write" : " read"), issued, back,
                                  static_cast<double>(bytes));
                     if (const int late = cfg_.sim.completion_notice_cycles; late > 0)
                         notices_.schedule(now() + late, [done, at = back + tln] { done(at); });
                     else
                         done(back + tln);
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
