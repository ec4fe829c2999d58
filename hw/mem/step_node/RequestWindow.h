#pragma once
// A client's request window at the HBM node: at most `cap` requests in flight, a request's slot coming back
// at a known cycle. A slot counts until the window is released at or after its cycle.
//
// Far from its cap (the step_eval preset's window is 65536 requests and never fills) a window only needs to
// know that it is far. The slots' cycles are appended to a log in blocks, and a block is dropped once every
// slot in it is back; the log's length then bounds the slots in use from above. Only when that bound would
// refuse a packet are the slots counted one by one (and the log compacted to them), and a window found near
// its cap keeps them counted per cycle in a CountCalendar from then on. A calendar alone costs a cache miss
// per request: in a deep queue the cycles a client's slots come back spread over thousands of cycles, and
// it cost the chip's step_eval runs a third of their time. Both answer every question exactly alike.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include "util/CountCalendar.h"

namespace steprdu::hw::mem {

class RequestWindow {
  public:
    explicit RequestWindow(int cap = 0) : cap_(cap) {}
    int cap() const { return cap_; }
    void setCap(int cap) { cap_ = cap; }
    // `n` slots in use until cycle `t`, which must be after the last release.
    void add(std::int64_t t, int n = 1) {
        if (counted_) {
            calendar_.add(t, n);
            return;
        }
        for (int i = 0; i < n; ++i) {
            log_.push_back(t);
            if (log_.size() % kBlock == 0) closeBlock();
        }
    }
    // The slots back by cycle `t` are free.
    void release(std::int64_t t) {
        if (counted_) {
            calendar_.releaseUpTo(t);
            return;
        }
        released_ = std::max(released_, t);
        if (released_ >= nextDrop_) dropBlocks();
    }
    // A packet of `count` requests may enter: no slot is in use, or `count` more fit.
    bool allows(int count) const {
        return bound() + count <= cap_ || countedAllows(count); // the bound is never below the slots in use
    }
    // At least the slots in use: what allows() looks at before it counts them.
    std::int64_t bound() const {
        return counted_ ? calendar_.size() : static_cast<std::int64_t>(log_.size() - head_);
    }
    // The earliest cycle a slot in use comes back; only when allows() has refused a packet.
    std::int64_t earliest() const;

  private:
    static constexpr std::size_t kBlock = 256;
    // Notes the latest cycle of the block the log has just completed.
    void closeBlock();
    // Drops the complete blocks from the log's start whose slots are all back.
    void dropBlocks();
    // allows() where the bound refuses: counts the slots in use.
    bool countedAllows(int count) const;
    void setNextDrop() const {
        nextDrop_ = head_ / kBlock < blockLast_.size() ? blockLast_[head_ / kBlock] : kNeverDrop;
    }
    // Keeps the logged slots not back by the last release, and counts them per cycle from here on if they
    // are near the cap.
    void compact() const;

    int cap_;
    mutable bool counted_ = false;
    // Until counted: the slots' cycles in the order added, those before head_ dropped, and per complete
    // block of kBlock of them (from the log's start) the latest.
    mutable std::vector<std::int64_t> log_, blockLast_;
    mutable std::size_t head_ = 0;
    static constexpr std::int64_t kNeverDrop = INT64_MAX;
    mutable std::int64_t nextDrop_ = kNeverDrop; // the first block's latest cycle, once it is complete
    std::int64_t released_ = -1;
    mutable CountCalendar calendar_; // once counted
};

} // namespace steprdu::hw::mem
