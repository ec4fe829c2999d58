#include "hw/Agcu.h"

#include <algorithm>

#include "hw/OperatorProcess.h"

namespace steprdu::hw {

Agcu::Agcu(sc_core::sc_module_name name, const HwConfig& cfg, int index, SimpleHbm& memory,
           const step::Graph& graph, const std::vector<std::int64_t>& tensorBase)
    : Unit(name, UnitKind::Agcu, cfg), index_(index), memory_(memory), graph_(graph), base_(tensorBase) {
    // A slot of the window frees when the response is back at the AGCU; a request issued then reaches the
    // node's front end a TLN crossing and the node's channel hop later.
    memory_.setWindow(index_, cfg_.agcu.max_outstanding, 2 * cfg_.agcu.tln_latency_cycles + 1);
}

std::vector<std::int64_t> Agcu::layout(const step::Graph& g) {
    std::vector<std::int64_t> base;
    std::int64_t next = 0;
    for (const auto& t : g.tensors()) {
        base.push_back(next);
        next += (t.rows * t.cols * step::elemBytes(t.elem) + 4095) / 4096 * 4096;
    }
    return base;
}

std::int64_t Agcu::bursts(const step::TensorSpec& t, std::int64_t base, const step::OffChipAccess& a,
                          int burstBytes) {
    const std::int64_t eb = a.elemBytes, tilesPerRow = t.cols / a.cols;
    const std::int64_t r0 = (a.tileIndex / tilesPerRow) * a.rows, c0 = (a.tileIndex % tilesPerRow) * a.cols;
    const std::int64_t pitch = t.cols * eb, len = a.cols * eb;
    std::int64_t first = base + r0 * pitch + c0 * eb;
    if (a.cols == t.cols) // whole rows: one contiguous range
        return (first + a.rows * len - 1) / burstBytes - first / burstBytes + 1;
    std::int64_t count = 0, last = -1;
    for (std::int64_t r = 0; r < a.rows; ++r) {
        std::int64_t s = first + r * pitch, b0 = s / burstBytes, b1 = (s + len - 1) / burstBytes;
        count += b1 - std::max(b0, last + 1) + 1;
        last = b1;
    }
    return count;
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
    std::int64_t n = bursts(tensor, base_.at(a.tensor), a, cfg_.agcu.burst_bytes);
    (a.write ? writeBursts_ : readBursts_) += n;
    bytes_ += a.bytes();
    int par = std::max(1, std::min({a.parDispatch, cfg_.agcu.bursts_per_cycle, cfg_.agcu.max_outstanding}));
    int ticket = nextTicket_++;
    ++s.unanswered;
    if (!a.write) op.holdNextDataFor(ticket);
    const Cycle tln = cfg_.agcu.tln_latency_cycles;
    OpState* sp = &s;
    memory_.submit(index_, a.write, now() + tln, n, par, [sp, ticket, tln, write = a.write](Cycle back) {
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
