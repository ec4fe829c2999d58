#include "hw/units/Agcu.h"

#include <algorithm>

#include "hw/units/OperatorProcess.h"
#include "util/Timeline.h"

namespace steprdu::hw {

Agcu::Agcu(sc_core::sc_module_name name, const HwConfig& cfg, int index,
           const std::vector<OffChipMemory*>& tiers, const step::Graph& graph, MemoryMap& map)
    : Unit(name, UnitKind::Agcu, cfg), index_(index), tiers_(tiers), graph_(graph), map_(map) {
    // A slot of the window frees when the response is back at the AGCU; a request issued then reaches the
    // memory's front end a TLN crossing and one hop later.
    for (OffChipMemory* t : tiers_)
        if (t)
            t->setWindow(index_, cfg_.agcu.max_outstanding, cfg_.agcu.burst_bytes,
                         2 * cfg_.agcu.tln_latency_cycles + 1);
}

std::vector<ByteRange> Agcu::burstRanges(const step::TensorSpec& t, std::int64_t base,
                                         const step::OffChipAccess& a, int burstBytes, int blockRows,
                                         int blockCols) {
    const std::int64_t eb = a.elemBytes, tilesPerRow = t.cols / a.cols;
    const std::int64_t r0 = (a.tileIndex / tilesPerRow) * a.rows, c0 = (a.tileIndex % tilesPerRow) * a.cols;
    std::vector<std::pair<std::int64_t, std::int64_t>> segments; // (first byte, bytes), by address
    if (blockRows > 0) {
        const std::int64_t br = blockRows, bc = blockCols, blocksPerRow = (t.cols + bc - 1) / bc;
        for (std::int64_t r = r0; r < r0 + a.rows; ++r)
            for (std::int64_t c = c0; c < c0 + a.cols;) {
                const std::int64_t j = c / bc, end = std::min(c0 + a.cols, (j + 1) * bc);
                const std::int64_t block = (r / br) * blocksPerRow + j;
                segments.emplace_back(base + (block * br * bc + (r % br) * bc + (c - j * bc)) * eb,
                                      (end - c) * eb);
                c = end;
            }
        std::sort(segments.begin(), segments.end());
    } else {
        const std::int64_t pitch = t.cols * eb, len = a.cols * eb;
        const std::int64_t first = base + r0 * pitch + c0 * eb;
        if (a.cols == t.cols) // whole rows are one contiguous segment
            segments.emplace_back(first, a.rows * len);
        else
            for (std::int64_t r = 0; r < a.rows; ++r)
                segments.emplace_back(first + r * pitch, len);
    }
    std::vector<ByteRange> out;
    std::int64_t last = -1; // the last burst covered so far
    for (const auto& [s, bytes] : segments) {
        const std::int64_t b0 = s / burstBytes, b1 = (s + bytes - 1) / burstBytes;
        if (!out.empty() && b0 <= last + 1) {
            if (b1 > last) out.back().bytes += (b1 - last) * burstBytes;
        } else {
            out.push_back({static_cast<std::uint64_t>(b0 * burstBytes), (b1 - b0 + 1) * burstBytes});
        }
        last = std::max(last, b1);
    }
    return out;
}

std::int64_t Agcu::burstCount(const std::vector<ByteRange>& ranges, int burstBytes) {
    std::int64_t n = 0;
    for (const auto& r : ranges)
        n += r.bytes / burstBytes;
    return n;
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
    std::vector<ByteRange> ranges = burstRanges(tensor, map_.base(a.tensor), a, burst,
                                                static_cast<int>(blockRows), static_cast<int>(blockCols));
    (a.write ? writeBursts_ : readBursts_) += burstCount(ranges, burst);
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
