#pragma once
// Timed items for an event-driven module: a min-heap of (cycle, item) and the SystemC event that wakes the
// module's process at the earliest one. Same-cycle items come out in insertion order, so a module that
// drains its calendar behaves deterministically.
#include <queue>
#include <vector>

#include "hw/sim/SimTime.h"

namespace steprdu::hw {

template <class T> class Calendar {
  public:
    explicit Calendar(sc_core::sc_event& wake) : wake_(wake) {}

    void schedule(Cycle at, T item) {
        heap_.push({at, seq_++, std::move(item)});
        notifyAt(wake_, heap_.top().at);
    }
    // True if an item is due at or before the current cycle.
    bool due() const { return !heap_.empty() && heap_.top().at <= now(); }
    T pop() {
        T item = std::move(const_cast<Entry&>(heap_.top()).item);
        heap_.pop();
        return item;
    }
    // Re-arms the wake-up for the earliest remaining item (after draining).
    void rearm() {
        if (!heap_.empty()) notifyAt(wake_, heap_.top().at);
    }
    bool empty() const { return heap_.empty(); }
    Cycle next() const { return heap_.empty() ? kNever : heap_.top().at; }

  private:
    struct Entry {
        Cycle at;
        std::uint64_t seq;
        T item;
        bool operator>(const Entry& o) const { return at != o.at ? at > o.at : seq > o.seq; }
    };
    sc_core::sc_event& wake_;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap_;
    std::uint64_t seq_ = 0;
};

} // namespace steprdu::hw
