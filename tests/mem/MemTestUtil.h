#pragma once
// Helpers for the memory tests: a DRAM tier alone (testbenches/units/MemTraceBench.h) run in a child process,
// and addresses built field by field under the RoBaRaCoCh mapping.
#include <cstdint>

#include "testbenches/units/MemTraceBench.h"
#include "util/ForkRun.h"

namespace steprdu::memtest {

using hw::mem::DramSpec;
using traces::MemRequest;
using traces::MemTrace;

inline hw::mem::MemTraceOptions options(const DramSpec& spec, bool fastPath = true) {
    hw::mem::MemTraceOptions o;
    o.spec = spec;
    o.fastPath = fastPath;
    return o;
}

inline nlohmann::json run(const hw::mem::MemTraceOptions& o, const MemTrace& t) {
    return runInChild([&] { return hw::mem::runMemTrace(o, t); });
}

// RoBaRaCoCh, least significant first: channel, column, rank, bank group, bank, row.
inline std::uint64_t address(const DramSpec& s, int channel, int rank, int group, int bank, int row,
                             int column = 0) {
    std::uint64_t x = row;
    x = x * s.banks + bank;
    x = x * s.bankGroups + group;
    x = x * s.ranks + rank;
    x = x * s.columns + column;
    x = x * s.channels + channel;
    return x * s.transactionBytes;
}

inline MemRequest read(std::uint64_t address, std::int64_t bytes = 64, std::int64_t cycle = 0) {
    MemRequest r;
    r.cycle = cycle;
    r.address = address;
    r.bytes = bytes;
    return r;
}

} // namespace steprdu::memtest
