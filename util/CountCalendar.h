#pragma once
// Counts of events at integer times (slots coming back to a request window), kept per time in a ring from
// the first time not yet released. Events come a bounded time ahead of the present, so adding and releasing
// cost O(1) per event and per time passed, where a heap costs a cache miss per level once it is large.
#include <cstdint>
#include <vector>

namespace steprdu {

class CountCalendar {
  public:
    // An event at `t` (usually after every time released so far; an earlier one costs a rebuild).
    void add(std::int64_t t);
    // Releases every event at or before `t`; returns how many there were.
    int releaseUpTo(std::int64_t t);
    int size() const { return size_; }
    bool empty() const { return size_ == 0; }
    // The earliest event's time; only when not empty.
    std::int64_t earliest() const;

  private:
    std::int64_t base_ = 0;          // every time before it is released
    std::int64_t last_ = 0;          // no event is after it
    mutable std::int64_t first_ = 0; // no event is before it (where earliest() starts looking)
    std::vector<int> counts_;        // counts_[t & (size - 1)]: events at t, for t in [base_, base_ + size)
    int size_ = 0;
};

} // namespace steprdu
