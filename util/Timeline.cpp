#include "util/Timeline.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace steprdu {

Timeline::Timeline(std::int64_t from, std::int64_t to, std::int64_t binCycles, std::int64_t maxEvents)
    : from_(from), to_(to), bin_(std::max<std::int64_t>(1, binCycles)), maxEvents_(maxEvents) {}

bool Timeline::take() {
    if (events_ >= maxEvents_) {
        truncated_ = true;
        return false;
    }
    ++events_;
    return true;
}

int Timeline::group(const std::string& name) {
    auto [it, added] = groupIndex_.emplace(name, static_cast<int>(groups_.size()));
    if (added) groups_.push_back(name);
    return it->second;
}

int Timeline::nameIndex(const std::string& s) {
    auto [it, added] = nameIndex_.emplace(s, static_cast<int>(names_.size()));
    if (added) names_.push_back(s);
    return it->second;
}

int Timeline::track(const std::string& g, const std::string& name) {
    const auto key = std::make_pair(group(g), name);
    auto [it, added] = trackIndex_.emplace(key, static_cast<int>(tracks_.size()));
    if (added) tracks_.push_back(key);
    return it->second;
}

void Timeline::slice(int track, const std::string& name, std::int64_t start, std::int64_t duration) {
    if (start >= to_ || start + std::max<std::int64_t>(duration, 1) <= from_ || !take()) return;
    slices_.push_back({track, start, duration, nameIndex(name)});
}

void Timeline::level(const std::string& g, const std::string& name, std::int64_t t, std::int64_t delta) {
    if (t >= to_) return;
    auto& l = levels_[{group(g), name}];
    if (t < from_)
        l.base += delta;
    else if (take())
        l.deltas.emplace_back(t, delta);
}

void Timeline::rate(const std::string& g, const std::string& name, std::int64_t start, std::int64_t end,
                    double amount) {
    if (end >= from_ && start < to_ && (end <= start || amount == 0)) end = start + 1;
    if (end <= from_ || start >= to_) return;
    auto& bins = rates_[{group(g), name}];
    const double perCycle = amount / static_cast<double>(end - start);
    for (std::int64_t b = start / bin_; b * bin_ < end; ++b) {
        const std::int64_t lo = std::max(start, b * bin_), hi = std::min(end, (b + 1) * bin_);
        bins[b] += perCycle * static_cast<double>(hi - lo);
    }
}

std::string Timeline::json() const {
    std::string out = "{\"traceEvents\":[\n";
    bool first = true;
    auto emit = [&](const std::string& e) {
        out += first ? "" : ",\n";
        out += e;
        first = false;
    };
    const auto quoted = [](const std::string& s) { return nlohmann::json(s).dump(); };
    for (std::size_t g = 0; g < groups_.size(); ++g)
        emit(fmt::format(R"({{"name":"process_name","ph":"M","pid":{},"args":{{"name":{}}}}})", g + 1,
                         quoted(groups_[g])));
    for (std::size_t t = 0; t < tracks_.size(); ++t)
        emit(fmt::format(R"({{"name":"thread_name","ph":"M","pid":{},"tid":{},"args":{{"name":{}}}}})",
                         tracks_[t].first + 1, t + 1, quoted(tracks_[t].second)));
    for (const auto& s : slices_)
        emit(fmt::format(R"({{"name":{},"ph":"X","ts":{},"dur":{},"pid":{},"tid":{}}})",
                         quoted(names_[s.name]), s.start, s.duration, tracks_[s.track].first + 1,
                         s.track + 1));
    std::int64_t budget = maxEvents_ - events_;
    bool cut = truncated_;
    // Levels: the running sum of the deltas in time order, one event per cycle that changes it; the level
    // reached before the window opens is its first value.
    for (const auto& [key, level] : levels_) {
        auto d = level.deltas;
        std::stable_sort(d.begin(), d.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        std::int64_t value = level.base;
        // Named copies: C++17 lambdas cannot capture structured bindings (clang refuses).
        const std::string name = quoted(key.second);
        const int pid = key.first + 1;
        const auto counter = [&](std::int64_t t, std::int64_t v) {
            emit(fmt::format(R"({{"name":{},"ph":"C","ts":{},"pid":{},"args":{{"value":{}}}}})", name, t, pid,
                             v));
        };
        if (value != 0) counter(from_, value);
        for (std::size_t i = 0; i < d.size();) {
            const std::int64_t t = d[i].first;
            for (; i < d.size() && d[i].first == t; ++i)
                value += d[i].second;
            counter(t, value);
        }
    }
    for (const auto& [key, bins] : rates_)
        for (const auto& [b, amount] : bins) {
            const std::int64_t t = std::max(b * bin_, from_);
            if (t >= to_) continue;
            if (budget-- <= 0) {
                cut = true;
                break;
            }
            emit(fmt::format(R"({{"name":{},"ph":"C","ts":{},"pid":{},"args":{{"bytes_per_cycle":{:.6g}}}}})",
                             quoted(key.second), t, key.first + 1, amount / static_cast<double>(bin_)));
        }
    out += fmt::format("\n],\"displayTimeUnit\":\"ns\",\"otherData\":{{\"time_unit\":\"1 us = 1 cycle\","
                       "\"window\":[{},{}],\"bin_cycles\":{},\"truncated\":{}}}}}\n",
                       from_, to_ == kEnd ? -1 : to_, bin_, cut ? "true" : "false");
    return out;
}

} // namespace steprdu
