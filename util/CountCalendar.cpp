#include "util/CountCalendar.h"

#include <algorithm>

namespace steprdu {

void CountCalendar::grow(std::int64_t t, int n) {
    if (size_ == 0) base_ = last_ = first_ = t; // an empty ring (all zero) may start anywhere
    const std::int64_t from = std::min(t, base_), to = std::max(t, last_);
    const auto span = static_cast<std::int64_t>(counts_.size());
    if (to - from >= span) { // grow to a power of two that spans [from, to], each count at its time
        std::int64_t grown = std::max<std::int64_t>(span, 64);
        while (grown <= to - from)
            grown *= 2;
        std::vector<int> ring(grown, 0);
        for (std::int64_t u = base_; u <= last_ && size_ > 0; ++u)
            ring[u & (grown - 1)] = counts_[u & (span - 1)];
        counts_ = std::move(ring);
        span_ = grown;
    }
    // Slots before base_ are zero (released), and no event lies a span or more after `from`.
    base_ = from;
    last_ = to;
    counts_[t & (span_ - 1)] += n;
    size_ += n;
    first_ = std::min(first_, t);
}

int CountCalendar::release(std::int64_t t) {
    const std::int64_t mask = span_ - 1;
    int released = 0;
    for (; base_ <= t && released < size_; ++base_) {
        int& n = counts_[base_ & mask];
        released += n;
        n = 0;
    }
    size_ -= released;
    base_ = std::max(base_, t + 1); // whatever is left lies after t
    return released;
}

std::int64_t CountCalendar::earliest() const {
    const std::int64_t mask = span_ - 1;
    std::int64_t t = std::max(first_, base_);
    while (counts_[t & mask] == 0)
        ++t;
    first_ = t; // asked again before anything changes, it answers at once
    return t;
}

} // namespace steprdu
