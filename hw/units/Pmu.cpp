#include "hw/units/Pmu.h"

#include <numeric>

#include <fmt/format.h>

#include "hw/units/OperatorProcess.h"
#include "util/Error.h"

namespace steprdu::hw {

Cycle Pmu::portCycles(const PmuConfig& c, std::int64_t bytes, std::int64_t strideWords, int units) {
    const std::int64_t width = static_cast<std::int64_t>(c.bandwidth_bytes_per_cycle) * std::max(1, units);
    const std::int64_t perCycle = std::max<std::int64_t>(1, width / c.bank_word_bytes);
    const std::int64_t words = (bytes + c.bank_word_bytes - 1) / c.bank_word_bytes;
    const std::int64_t banks = static_cast<std::int64_t>(c.banks) * std::max(1, units);
    // Words s apart cycle through banks / gcd(s, banks) distinct banks; a bank serves one word per cycle, so
    // a port cycle's worth of words takes as many cycles as the most any bank receives.
    const std::int64_t distinct = banks / std::gcd(std::max<std::int64_t>(1, strideWords), banks);
    auto groupCycles = [&](std::int64_t n) { return (n + distinct - 1) / distinct; };
    return (words / perCycle) * groupCycles(perCycle) + groupCycles(words % perCycle);
}

std::pair<Cycle, Cycle> Pmu::reserve(bool write, Cycle from, std::int64_t bytes, std::int64_t strideWords,
                                     int units) {
    Cycle& free = write ? writeFree_ : readFree_;
    Cycle cycles = portCycles(cfg_.pmu, bytes, strideWords, units);
    Cycle ideal = portCycles(cfg_.pmu, bytes, 1, units);
    Cycle start = std::max(from, free);
    free = start + cycles;
    portBusy_ += cycles;
    conflictCycles_ += cycles - ideal;
    (write ? writeBytes_ : readBytes_) += bytes;
    return {start, start + cycles};
}

void Pmu::checkAllocation(const std::string& what, std::int64_t demand, int units,
                          const std::string& detail) const {
    std::int64_t capacity = cfg_.pmu.capacity_bytes * std::max(1, units);
    if (demand > capacity)
        throw BadInput(fmt::format("{}: PMU overflow: {} needs {} B ({}), capacity {} B ({} PMU{} of {} B)",
                                   path(), what, demand, detail, capacity, units, units == 1 ? "" : "s",
                                   cfg_.pmu.capacity_bytes));
}

void Pmu::allocate(std::int64_t bytes) {
    allocated_ += bytes;
    peakAllocated_ = std::max(peakAllocated_, allocated_);
}

WorkDone Pmu::perform(OperatorProcess& op, const step::Work& w) {
    using K = step::Work::Kind;
    const std::string& kind = op.op().kind();
    bool write = kind == "Bufferize";
    if (w.kind != K::BufferElement && w.kind != K::Repeat) return {now(), now()};
    if (write) {
        bufferBytes_ += w.elementBytes;
        checkAllocation(fmt::format("the buffer of {}", op.op().where()), 2 * bufferBytes_, op.units(),
                        fmt::format("double-buffered, {} B so far", bufferBytes_));
    } else if (kind == "RepeatStatic") {
        checkAllocation(fmt::format("the element {} replays", op.op().where()), w.elementBytes, op.units(),
                        "one element");
    }
    auto [start, end] = reserve(write, now(), w.elementBytes, 1, op.units());
    (void)start;
    return {end, write ? end : end + cfg_.pmu.read_latency_cycles};
}

void Pmu::sent(OperatorProcess& op, const step::Token& t, std::int64_t) {
    if (op.op().kind() != "Bufferize" || !t.isData()) return;
    // The buffer is complete; the next one is filled while this one is streamed (double buffering).
    allocate(2 * bufferBytes_ - allocated_);
    bufferBytes_ = 0;
}

void Pmu::reportStats(StatsRegistry& stats, Cycle) const {
    stats.add(path(), "write_bytes", static_cast<double>(writeBytes_));
    stats.add(path(), "read_bytes", static_cast<double>(readBytes_));
    stats.add(path(), "port_busy_cycles", static_cast<double>(portBusy_));
    stats.add(path(), "bank_conflict_cycles", static_cast<double>(conflictCycles_));
    stats.add(path(), "peak_allocated_bytes", static_cast<double>(peakAllocated_));
}

} // namespace steprdu::hw
