#include "hw/fabric/FabricRoute.h"

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

void FabricRoute::carry(TokenChannel& ch, std::uint64_t seq, std::int64_t bytes, bool data, Cycle at,
                        Cycle tailReady) {
    const int b = branchOf(ch);
    const Branch& br = branches_[b];
    if (br.local) return ch.arrived(seq, at + localHop_, tailReady + localHop_);
    if (!data) return ch.arrived(seq, at + br.control, at + br.control);
    // Every fabric branch hands over the same element once (a Broadcast sends to all outputs together);
    // the element leaves when the last one has.
    std::uint64_t ordinal = nextOrdinal_[b]++;
    Pending& p = pending_[ordinal];
    if (p.seq.empty()) {
        p.seq.assign(branches_.size(), 0);
        p.partsLeft.assign(branches_.size(), -1);
        p.forward.assign(branches_.size(), -1);
        p.first.assign(branches_.size(), kNever);
        p.last.assign(branches_.size(), 0);
        p.waiting = p.open = static_cast<int>(fabricBranches_.size());
        p.bytes = bytes;
    }
    p.seq[b] = seq;
    p.tailReady = std::max(p.tailReady, tailReady);
    if (--p.waiting == 0) fabric_->send(bytes, at, p.tailReady, this, ordinal);
}

void FabricRoute::delivered(std::uint64_t tag, int dest, Cycle head, Cycle tail) {
    partDelivered(tag, dest, 0, 1, pending_.at(tag & ((1ULL << kOrdinalBits) - 1)).bytes, head, tail);
}

void FabricRoute::partDelivered(std::uint64_t tag, int dest, int part, int parts, std::int64_t bytes,
                                Cycle head, Cycle tail) {
    const std::uint64_t ordinal = tag & ((1ULL << kOrdinalBits) - 1);
    if (tag & kSecondLeg)
        return arrivedPart(ordinal, static_cast<int>((tag & ~kSecondLeg) >> kOrdinalBits), parts, head, tail);
    const int b = fabricBranches_.at(dest);
    if (branches_[b].stage) {
        // Each first-leg packet becomes the same part of one second-leg message of the same size.
        Pending& p = pending_.at(ordinal);
        if (p.partsLeft[b] < 0) p.partsLeft[b] = parts;
        return forwardFromStage(ordinal, b, part, bytes, head, tail);
    }
    arrivedPart(ordinal, b, parts, head, tail);
}

void FabricRoute::headDelivered(std::uint64_t tag, int dest, Cycle head) {
    const std::uint64_t ordinal = tag & ((1ULL << kOrdinalBits) - 1);
    int b = static_cast<int>((tag & ~kSecondLeg) >> kOrdinalBits);
    if (!(tag & kSecondLeg)) {
        b = fabricBranches_.at(dest);
        if (branches_[b].stage) return; // the stage forwards it packet by packet; its second leg tells
    }
    // The consumer may start on the element as its first packet arrives.
    branches_[b].channel->headArrived(pending_.at(ordinal).seq[b], head);
}

void FabricRoute::arrivedPart(std::uint64_t ordinal, int b, int parts, Cycle head, Cycle tail) {
    auto it = pending_.find(ordinal);
    Pending& p = it->second;
    if (p.partsLeft[b] < 0) p.partsLeft[b] = parts;
    p.first[b] = std::min(p.first[b], head);
    p.last[b] = std::max(p.last[b], tail);
    if (--p.partsLeft[b] > 0) return;
    branches_[b].channel->arrived(p.seq[b], p.first[b], p.last[b]);
    if (--p.open == 0) pending_.erase(it);
}

// A tile streams through its stage PMU: each packet is written at the write port as it arrives, read out at
// the read port once its first words are in (never finishing before its last are), and sent on. Each lane's
// packets go through their own PMU, as they arrive, whatever the other lanes' progress.
void FabricRoute::forwardFromStage(std::uint64_t ordinal, int b, int part, std::int64_t bytes, Cycle head,
                                   Cycle tail) {
    Branch& br = branches_[b];
    Stage& s = *br.stage;
    Pending& p = pending_.at(ordinal);
    const std::int64_t element = p.bytes;
    const std::int64_t depth = br.channel->capacity() > 0 ? br.channel->capacity() : 1;
    if (depth * element > stageDemand_[b]) {
        s.buffer->checkAllocation(fmt::format("the stage buffer of stream {}", br.channel->label()),
                                  depth * element, s.units,
                                  fmt::format("{} element(s) of {} B", depth, element));
        s.buffer->allocate(depth * element - stageDemand_[b]);
        stageDemand_[b] = depth * element;
    }
    // A bundle of lanes numbers part k of lane l as k x lanes + l (LaneBundle).
    StageBuffer* port = s.buffer;
    int units = s.units;
    if (!s.laneBuffers.empty()) {
        port = s.laneBuffers[part % s.laneBuffers.size()];
        units = 1;
    }
    const Cycle lat = port->readLatency();
    auto [ws, we] = port->reserve(true, head, bytes, 1, units);
    auto [rs, re] = port->reserve(false, ws + lat, bytes, 1, units);
    if (p.forward[b] < 0)
        p.forward[b] = s.out->open(element, this, kSecondLeg | (std::uint64_t(b) << kOrdinalBits) | ordinal);
    s.out->release(p.forward[b], part, rs, std::max({re, we + lat, tail + lat}));
}

} // namespace steprdu::hw
