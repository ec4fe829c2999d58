#pragma once
// The SRAM a stream passes through when its producer writes its results to memory: a route writes each
// tile in at the buffer's write port and reads it out at its read port. A PMU implements it; the fabric only
// sees the ports and the capacity.
#include <cstdint>
#include <string>
#include <utility>

#include "hw/sim/SimTime.h"

namespace steprdu::hw {

class StageBuffer {
  public:
    virtual ~StageBuffer() = default;
    // Throws BadInput naming `what` if `demand` bytes do not fit `units` of these buffers.
    virtual void checkAllocation(const std::string& what, std::int64_t demand, int units,
                                 const std::string& detail) const = 0;
    // The buffer holds `bytes` more (or less).
    virtual void allocate(std::int64_t bytes) = 0;
    // Reserves the write or read port for `bytes` no earlier than `from` through ports `units` buffers wide;
    // returns {start, end}.
    virtual std::pair<Cycle, Cycle> reserve(bool write, Cycle from, std::int64_t bytes,
                                            std::int64_t strideWords = 1, int units = 1) = 0;
    // Cycles from a word's write to its earliest read.
    virtual Cycle readLatency() const = 0;
};

} // namespace steprdu::hw
