#pragma once
// Counts of events at integer times (slots coming back to a request window), kept per time in a ring from
// the first time not yet released. Events come a bounded time ahead of the present, so adding and releasing
// cost O(1) per event and per time passed, where a heap costs a cache miss per level once it is large.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace steprdu {

class CountCalendar {
  public:
    // `n` events at `t` (usually after every time released so far; an earlier one costs a rebuild).
    void add(std::int64_t t, int n = 1) {
        // Inline while the ring already spans `t`: a window adds an event per request.
        if (size_ > 0 && t >= base_ && t - base_ < span_) {
            counts_[t & (span_ - 1)] += n;
            size_ += n;
            last_ = std::max(last_, t);
            first_ = std::min(first_, t);
            return;
        }
        grow(t, n);
    }
    // Releases every event at or before `t`; returns how many there were.
    int releaseUpTo(std::int64_t t) {
        if (t < base_) return 0; // asked again within a time: nothing more is due
        return release(t);
    }
    int size() const { return size_; }
    bool empty() const { return size_ == 0; }
    // The earliest event's time; only when not empty.
    std::int64_t earliest() const;

  private:
    void grow(std::int64_t t, int n);
    int release(std::int64_t t);

    std::int64_t base_ = 0;          // every time before it is released
    std::int64_t last_ = 0;          // no event is after it
    mutable std::int64_t first_ = 0; // no event is before it (where earliest() starts looking)
    std::vector<int> counts_;        // counts_[t & (span_ - 1)]: events at t, for t in [base_, base_ + span_)
    std::int64_t span_ = 0;          // counts_.size(), a power of two
    int size_ = 0;
};

} // namespace steprdu
