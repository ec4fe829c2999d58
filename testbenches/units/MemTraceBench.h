#pragma once
// A memory tier alone, driven by a request trace: what `steprdu memtrace` and the memory tests run. The
// trace's cycles are DRAM cycles (the tier's fabric clock is the DRAM clock here). Elaborates SystemC: one
// run per process (util/ForkRun.h).
#include <nlohmann/json.hpp>

#include "hw/mem/dram/MemorySystem.h"
#include "traces/MemTrace.h"

namespace steprdu::hw::mem {

struct MemTraceOptions {
    DramSpec spec;
    MemorySystemOptions memory; // its clock is ignored: one DRAM cycle per tick
    bool fastPath = true;
    bool completions = false; // list every request's completion cycle in the result
};

// {"dram_cycles", "ns", "bytes_read", "bytes_written", "bytes_per_cycle", "achieved_gb_per_s",
// "peak_gb_per_s",
//  "read_latency_mean_ns", "read_latency_p99_ns", "row_hits", ...}; docs/memory.md lists every key.
nlohmann::json runMemTrace(const MemTraceOptions& o, const traces::MemTrace& trace);

} // namespace steprdu::hw::mem
