#pragma once
// Memory request traces for `steprdu memtrace`: the CSV reader, the writer and the generators of the
// standard patterns. Format (docs/memory.md): header `cycle,op,address,bytes`, then one request per line:
// the DRAM cycle it reaches the controller (0 = as soon as the controller accepts it; cycles never go back),
// R or W, a byte address (decimal or 0x hex) aligned to the transaction size, and a positive byte count
// (a request may span several transactions).
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace steprdu::traces {

struct MemRequest {
    std::int64_t cycle = 0;
    bool write = false;
    std::uint64_t address = 0;
    std::int64_t bytes = 0;
};

struct MemTrace {
    std::string source; // file name or generator description
    std::vector<MemRequest> requests;
};

// Throws BadInput "<path>:<line>: ..." on a malformed line; `alignment` is the transaction size.
MemTrace readMemTrace(const std::string& path, int alignment);
void writeMemTrace(const MemTrace& t, std::ostream& out);

struct MemTraceGenerator {
    std::string pattern = "sequential"; // sequential | random | mixed (random with writes)
    std::int64_t bytes = 1 << 20;       // in all
    std::int64_t requestBytes = 64;
    std::int64_t span = 1LL << 30; // random: addresses in [0, span)
    double writeFraction = -1;     // share of writes; < 0: 0, or 0.5 for mixed
    std::uint64_t seed = 1;
};
// Every request at cycle 0 (as fast as the controller takes them). Throws BadInput on bad parameters.
MemTrace generateMemTrace(const MemTraceGenerator& g);

} // namespace steprdu::traces
