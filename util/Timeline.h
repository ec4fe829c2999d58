#pragma once
// A timeline of a run in the Chrome/Perfetto trace-event format (`--trace perfetto`): slices on tracks
// (an operator's firings, a unit's work), level counters (FIFO occupancy) and rate counters (bytes per cycle
// on a link or a memory tier, in fixed bins). Times are simulated cycles, written as microseconds (one
// displayed microsecond is one cycle). Only events inside the window [from, to) are kept, and at most
// `maxEvents` of them.
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace steprdu {

class Timeline {
  public:
    static constexpr std::int64_t kEnd = std::numeric_limits<std::int64_t>::max();
    Timeline(std::int64_t from = 0, std::int64_t to = kEnd, std::int64_t binCycles = 1000,
             std::int64_t maxEvents = 4'000'000);

    // A track (a row of slices) named `name` in the group `group` (a process in the viewer).
    int track(const std::string& group, const std::string& name);
    void slice(int track, const std::string& name, std::int64_t start, std::int64_t duration);
    // A counter that moves by `delta` at `t`; deltas may come in any order.
    void level(const std::string& group, const std::string& name, std::int64_t t, std::int64_t delta);
    // `amount` spread evenly over [start, end) (at `start` if end <= start), reported per cycle in bins.
    void rate(const std::string& group, const std::string& name, std::int64_t start, std::int64_t end,
              double amount);

    // The trace-event JSON.
    std::string json() const;
    std::int64_t events() const { return events_; }
    bool truncated() const { return truncated_; }

    // The timeline a cycle-level run records into (the SystemC modules reach it here), or nullptr.
    static Timeline* active() { return active_; }
    static void setActive(Timeline* t) { active_ = t; }

  private:
    struct Slice {
        int track;
        std::int64_t start, duration;
        int name;
    };
    bool take();
    int group(const std::string& name);
    int nameIndex(const std::string& s);

    std::int64_t from_, to_, bin_, maxEvents_;
    std::int64_t events_ = 0;
    bool truncated_ = false;
    std::vector<std::string> groups_, names_;
    std::map<std::string, int> groupIndex_, nameIndex_;
    std::vector<std::pair<int, std::string>> tracks_; // group, name
    std::map<std::pair<int, std::string>, int> trackIndex_;
    std::vector<Slice> slices_;
    struct Level {
        std::int64_t base = 0; // the sum of the deltas before the window
        std::vector<std::pair<std::int64_t, std::int64_t>> deltas;
    };
    std::map<std::pair<int, std::string>, Level> levels_;
    std::map<std::pair<int, std::string>, std::map<std::int64_t, double>> rates_; // bin -> amount
    static inline Timeline* active_ = nullptr;
};

} // namespace steprdu
