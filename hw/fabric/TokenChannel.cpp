#include "hw/fabric/TokenChannel.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "hw/fabric/StreamRoute.h"
#include "util/Strings.h"
#include "util/Timeline.h"

namespace steprdu::hw {

TokenChannel::TokenChannel(const std::string& label, std::int64_t capacity)
    : sc_core::sc_prim_channel(sc_core::sc_gen_unique_name(identifier(label).c_str())), label_(label),
      capacity_(capacity) {}

void TokenChannel::account() {
    Cycle t = now();
    occupancyIntegral_ += static_cast<double>(occupancy_) * static_cast<double>(t - accountedTo_);
    accountedTo_ = t;
}

double TokenChannel::meanOccupancy(Cycle elapsed) const {
    double total =
        occupancyIntegral_ + static_cast<double>(occupancy_) * static_cast<double>(elapsed - accountedTo_);
    return elapsed > 0 ? total / static_cast<double>(elapsed) : 0.0;
}

void TokenChannel::enter() {
    const Cycle t = now();
    if (t > readCycle_) {
        held_ -= readNow_;
        readNow_ = 0;
        readCycle_ = t;
    }
    while (!entering_.empty() && entering_.top() <= t) {
        entering_.pop();
        maxOccupancy_ = std::max(maxOccupancy_, ++held_);
    }
}

std::int64_t TokenChannel::maxOccupancy() const {
    // What enters after the last read's cycle adds to what is held after it.
    return std::max<std::int64_t>(maxOccupancy_,
                                  held_ - readNow_ + static_cast<std::int64_t>(entering_.size()));
}

void TokenChannel::returnCredits() {
    while (!creditReturns_.empty() && creditReturns_.front() <= now()) {
        creditReturns_.pop_front();
        --used_;
    }
}

bool TokenChannel::creditFree() {
    returnCredits();
    return capacity_ == 0 || used_ < creditsOut();
}

std::int64_t TokenChannel::creditsOut() const {
    if (capacity_ == 0 || plannedRate_ <= 0 || lastDataBytes_ == 0) return capacity_;
    // An element's credit is back a round trip and its serialization after it left.
    const std::int64_t width = std::int64_t(lanes_) * flitBytes_;
    const double loop = static_cast<double>(rtt_ + (lastDataBytes_ + width - 1) / width);
    return std::max(capacity_, static_cast<std::int64_t>(std::ceil(plannedRate_ * loop)));
}

void TokenChannel::takeCredit() {
    waitForCredit();
    ++used_;
}

void TokenChannel::waitForCredit() {
    while (!creditFree()) {
        producerWaiting_ = true;
        // The consumer may be looking ahead for what follows the queued data: it is data.
        if (lookaheadWaiting_) dataEvent_.notify(sc_core::SC_ZERO_TIME);
        if (!creditReturns_.empty())
            waitUntil(creditReturns_.front());
        else
            sc_core::wait(creditEvent_);
        producerWaiting_ = false;
    }
}

std::uint64_t TokenChannel::send(step::Token t, std::int64_t bytes, Cycle at, Cycle tailReady) {
    const bool data = t.isData();
    if (data) {
        account();
        // An element is in the stream from the cycle it enters it, not from when its producer knew it would
        // (an AGCU learns of a tile's return some cycles ahead, and how far ahead is the simulator's affair).
        if (at > now()) occupancyIntegral_ -= static_cast<double>(at - now());
        ++occupancy_;
        entering_.push(at);
        enter();
        if (auto* tl = Timeline::active()) tl->level("streams", label_, now(), 1);
        dataBytes_ += bytes;
        lastDataBytes_ = std::max<std::int64_t>(1, bytes);
    }
    ++tokens_;
    entries_.push_back({std::move(t), data, bytes});
    std::uint64_t seq = nextSeq_++;
    if (lookaheadWaiting_) dataEvent_.notify(sc_core::SC_ZERO_TIME);
    route_->carry(*this, seq, data ? bytes : 0, data, at, std::max(at, tailReady));
    return seq;
}

void TokenChannel::headArrived(std::uint64_t seq, Cycle head) {
    std::size_t idx = seq - headSeq_;
    if (entries_.at(idx).arrival != kNever) return;
    entries_[idx].arrival = head;
    propagate(idx);
}

void TokenChannel::arrived(std::uint64_t seq, Cycle head, Cycle tail) {
    tail = std::max(head, tail);
    if (seq < headSeq_) { // read already, at its head: its reader waits for this
        readTails_[seq] = tail;
        --readTailsUnknown_;
        lastReach_ = std::max(lastReach_, tail);
        if (!entries_.empty()) propagate(0);
        dataEvent_.notify(sc_core::SC_ZERO_TIME);
        return;
    }
    std::size_t idx = seq - headSeq_;
    if (entries_.at(idx).arrival == kNever) entries_[idx].arrival = head;
    entries_[idx].tail = tail;
    propagate(idx);
}

// A token is visible once it has arrived and the one ahead of it is visible; a stop or Done also waits
// for the last bytes of the data ahead of it.
void TokenChannel::propagate(std::size_t idx) {
    Cycle prev = idx == 0 ? lastVisible_ : entries_[idx - 1].visible;
    Cycle reach = idx == 0 ? (readTailsUnknown_ > 0 ? kNever : lastReach_) : entries_[idx - 1].reach;
    if (prev == kNever) return;
    for (std::size_t k = idx; k < entries_.size() && entries_[k].arrival != kNever; ++k) {
        Entry& e = entries_[k];
        if (!e.data && reach == kNever) break;
        e.visible = e.data ? std::max(e.arrival, prev) : std::max({e.arrival, prev, reach});
        e.reach = reach = reach == kNever || e.tail == kNever ? kNever : std::max(reach, e.tail);
        prev = e.visible;
    }
    if (entries_.front().visible != kNever) notifyAt(dataEvent_, entries_.front().visible);
}

Cycle TokenChannel::unreadTail(std::uint64_t seq, bool& known) const {
    const Entry& e = entries_.at(seq - headSeq_);
    known = e.tail != kNever;
    return e.arrival == kNever ? e.tail : earliestTail(e);
}

Cycle TokenChannel::earliestTail(const Entry& e) const {
    if (e.tail != kNever) return e.tail;
    const std::int64_t width = std::int64_t(lanes_) * flitBytes_;
    return e.arrival + (e.bytes + width - 1) / width;
}

Cycle TokenChannel::takeTail(std::uint64_t seq) {
    auto it = readTails_.find(seq);
    if (it == readTails_.end()) return kNever;
    Cycle t = it->second;
    readTails_.erase(it);
    return t;
}

bool TokenChannel::waitSent(int ahead) {
    while (!available(ahead)) {
        if (ahead > 0 && available(ahead - 1) && producerWaiting_) return false;
        lookaheadWaiting_ = ahead > 0;
        sc_core::wait(dataEvent_);
        lookaheadWaiting_ = false;
    }
    return true;
}

void TokenChannel::waitHead() {
    waitSent(0);
    while (headVisible() > now()) {
        Cycle v = headVisible();
        if (v != kNever)
            waitUntil(v);
        else
            sc_core::wait(dataEvent_);
    }
}

step::Token TokenChannel::read() {
    Entry e = std::move(entries_.front());
    entries_.pop_front();
    lastSeq_ = headSeq_++;
    lastVisible_ = e.visible;
    lastTail_ = e.tail;
    lastTailEarliest_ = earliestTail(e);
    if (e.tail == kNever)
        ++readTailsUnknown_;
    else
        lastReach_ = std::max(lastReach_, e.tail);
    if (e.data) {
        account();
        --occupancy_;
        enter();
        ++readNow_;
        if (auto* tl = Timeline::active()) tl->level("streams", label_, now(), -1);
        Cycle back = now() + route_->creditLatency(*this);
        creditReturns_.push_back(back);
        notifyAt(creditEvent_, back);
    }
    if (!entries_.empty() && entries_.front().visible != kNever)
        notifyAt(dataEvent_, entries_.front().visible);
    return std::move(e.token);
}

std::string TokenChannel::state() const {
    std::string s = fmt::format(
        "stream {}: {} data element(s) held of capacity {}, {} token(s) queued", label_, occupancy_,
        capacity_ == 0 ? std::string("unbounded") : std::to_string(creditsOut()), entries_.size());
    if (!entries_.empty())
        s += entries_.front().visible == kNever
                 ? ", head still in flight"
                 : fmt::format(", head visible at cycle {}", entries_.front().visible);
    if (producerWaiting_) s += ", producer waiting for a credit";
    return s;
}

} // namespace steprdu::hw
