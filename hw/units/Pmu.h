#pragma once
// Pattern memory unit: a banked SRAM scratchpad with a read port and a write port of
// pmu.bandwidth_bytes_per_cycle each. It runs Bufferize (writes), Streamify and RepeatStatic (reads) and
// holds the stage buffers of streams whose producer writes its results to memory (off-chip loads,
// write_back_mu operators). Words of bank_word_bytes interleave across the banks; a port moves
// bandwidth / word words per cycle, and words of one port cycle that fall into the same bank take a cycle
// each, so a strided access is slower by the largest number of its words that share a bank. Ports are
// first come, first served. An allocation larger than the unit's SRAM is an error naming the buffer.
#include <string>
#include <utility>

#include "hw/fabric/StageBuffer.h"
#include "hw/units/Unit.h"

namespace steprdu::hw {

class Pmu : public Unit, public StageBuffer {
  public:
    Pmu(sc_core::sc_module_name name, const HwConfig& cfg) : Unit(name, UnitKind::Pmu, cfg) {}

    // Port cycles to move `bytes` whose consecutive words are `strideWords` words apart (1 = sequential)
    // through ports `units` PMUs wide.
    static Cycle portCycles(const PmuConfig& c, std::int64_t bytes, std::int64_t strideWords = 1,
                            int units = 1);
    // Port reservations are first come, first served.
    std::pair<Cycle, Cycle> reserve(bool write, Cycle from, std::int64_t bytes, std::int64_t strideWords = 1,
                                    int units = 1) override;
    void checkAllocation(const std::string& what, std::int64_t demand, int units,
                         const std::string& detail) const override;
    // Tracks the peak allocation of this PMU's stage buffers.
    void allocate(std::int64_t bytes) override;
    Cycle readLatency() const override { return cfg_.pmu.read_latency_cycles; }

    WorkDone perform(OperatorProcess& op, const step::Work& w) override;
    void sent(OperatorProcess& op, const step::Token& t, std::int64_t bytes) override;
    void reportStats(StatsRegistry& stats, Cycle elapsed) const override;

  private:
    Cycle readFree_ = 0, writeFree_ = 0;
    std::int64_t readBytes_ = 0, writeBytes_ = 0, allocated_ = 0, peakAllocated_ = 0;
    Cycle portBusy_ = 0, conflictCycles_ = 0;
    std::int64_t bufferBytes_ = 0; // of the buffer a Bufferize on this PMU is filling
};

} // namespace steprdu::hw
