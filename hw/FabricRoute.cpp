#include "hw/FabricRoute.h"

#include <algorithm>

#include <fmt/format.h>

namespace steprdu::hw {

namespace {
// Second-leg tags (stage to consumer) carry the branch; first-leg tags are the token's ordinal.
constexpr std::uint64_t kSecondLeg = 1ULL << 63;
constexpr int kOrdinalBits = 40;
} // namespace

void FabricRoute::addBranch(Branch b) {
    if (!b.local) fabricBranches_.push_back(static_cast<int>(branches_.size()));
    branches_.push_back(std::move(b));
    nextOrdinal_.push_back(0);
    stageDemand_.push_back(0);
}

int FabricRoute::branchOf(const TokenChannel& ch) const {
    for (std::size_t b = 0; b < branches_.size(); ++b)
        if (branches_[b].channel == &ch) return static_cast<int>(b);
    throw std::logic_error("FabricRoute: unknown channel");
}

Cycle FabricRoute::creditLatency(const TokenChannel& ch) const {
    const Branch& b = branches_[branchOf(ch)];
    return b.local ? localHop_ : b.control;
}

void FabricRoute::carry(TokenChannel& ch, std::uint64_t seq, std::int64_t bytes, bool data, Cycle at) {
    const int b = branchOf(ch);
    const Branch& br = branches_[b];
    if (br.local) return ch.arrived(seq, at + localHop_);
    if (!data) return ch.arrived(seq, at + br.control);
    // Every fabric branch hands over the same element once (a Broadcast sends to all outputs together);
    // the element leaves when the last one has.
    std::uint64_t ordinal = nextOrdinal_[b]++;
    Pending& p = pending_[ordinal];
    if (p.seq.empty()) {
        p.seq.assign(branches_.size(), 0);
        p.waiting = p.open = static_cast<int>(fabricBranches_.size());
        p.bytes = bytes;
    }
    p.seq[b] = seq;
    if (--p.waiting == 0) fabric_->send(bytes, at, at, this, ordinal);
}

void FabricRoute::delivered(std::uint64_t tag, int dest, Cycle head, Cycle tail) {
    if (tag & kSecondLeg) {
        int b = static_cast<int>((tag & ~kSecondLeg) >> kOrdinalBits);
        std::uint64_t ordinal = tag & ((1ULL << kOrdinalBits) - 1);
        branches_[b].channel->arrived(pending_.at(ordinal).seq[b], tail);
        return finish(ordinal);
    }
    int b = fabricBranches_.at(dest);
    if (branches_[b].stage) return arriveAtStage(tag, b, head, tail);
    branches_[b].channel->arrived(pending_.at(tag).seq[b], tail);
    finish(tag);
}

// The tile streams through the stage PMU: written at the write port as it arrives, read out at the read port
// as soon as its first words are in (never finishing before the last are), and sent on to the consumer.
void FabricRoute::arriveAtStage(std::uint64_t ordinal, int b, Cycle head, Cycle tail) {
    Branch& br = branches_[b];
    Stage& s = *br.stage;
    const std::int64_t bytes = pending_.at(ordinal).bytes;
    const std::int64_t depth = br.channel->capacity() > 0 ? br.channel->capacity() : 1;
    if (depth * bytes > stageDemand_[b]) {
        s.pmu->checkAllocation(fmt::format("the stage buffer of stream {}", br.channel->label()),
                               depth * bytes, s.units, fmt::format("{} element(s) of {} B", depth, bytes));
        s.pmu->allocate(depth * bytes - stageDemand_[b]);
        stageDemand_[b] = depth * bytes;
    }
    const Cycle lat = s.pmu->config().pmu.read_latency_cycles;
    auto [ws, we] = s.pmu->reserve(true, head, bytes, 1, s.units);
    auto [rs, re] = s.pmu->reserve(false, ws + lat, bytes, 1, s.units);
    s.out->send(bytes, rs, std::max({re, we + lat, tail + lat}), this,
                kSecondLeg | (std::uint64_t(b) << kOrdinalBits) | ordinal);
}

void FabricRoute::finish(std::uint64_t ordinal) {
    auto it = pending_.find(ordinal);
    if (--it->second.open == 0) pending_.erase(it);
}

} // namespace steprdu::hw
