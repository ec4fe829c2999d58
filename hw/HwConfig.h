#pragma once
// The typed hardware configuration. Every default lives in the member initialisers below; the key table
// (ranges, docs, YAML/JSON names) is hw/ConfigSchema.cpp, and presets in configs/*.yaml override a subset.
// Defaults: the published STeP simulator's evaluation setup (PMU and HBM) and the SN40L-like values of
// hardware-and-pnr.md section 7 for everything STeP does not model.
#include <cstdint>
#include <string>

namespace steprdu::hw {

// Pattern memory unit: on-chip SRAM scratchpad.
struct PmuConfig {
    // STeP's PMU_BW: charged separately to the reads and to the writes of one element.
    int bandwidth_bytes_per_cycle = 64;
    std::int64_t capacity_bytes = 524288;
    int banks = 16;
    int read_latency_cycles = 4;
    int input_fifo_depth = 16;
};

// Pattern compute unit: systolic array plus SIMD pipeline.
struct PcuConfig {
    int flops_per_cycle = 512;
    int simd_lanes = 16;
    int pipeline_latency_cycles = 10;
    int input_fifo_depth = 16;
};

// Off-chip HBM as the STeP simulator's HBMConfig(addr_offset, channel_num, per_channel_latency,
// per_channel_init_interval, per_channel_outstanding, per_channel_start_up_time), in that order.
struct HbmConfig {
    int request_bytes = 64;
    int channels = 32;
    int latency_cycles = 2;
    int init_interval_cycles = 2;
    int outstanding_per_channel = 1;
    int startup_cycles = 14;

    // Every channel accepts one request per init interval.
    double peakBytesPerCycle() const;
};

struct DdrConfig {
    int channels = 6;
    int bandwidth_bytes_per_cycle = 167;
    int latency_cycles = 120;
};

// Reconfigurable dataflow network (vector fabric).
struct RdnConfig {
    int flit_bytes = 64;
    int hop_latency_cycles = 2;
    // Route classes (XY and YX) that keep static routing deadlock-free.
    int vcs = 2;
    int vc_buffer_flits = 4;
};

struct ChipConfig {
    int tiles = 8;
    int rows = 13;
    int cols = 20;
    int agcus_per_tile = 4;
};

// Knobs of the roofline (STeP-equivalent) backend rather than of the hardware.
struct RooflineConfig {
    // Reproduce the published simulator's quirks (e.g. HBM start-up charged on every request).
    bool step_compat = true;
    // Depth of every stream FIFO; 0 keeps the testbench's own default (as the paper's scripts chose it).
    int channel_depth = 0;
};

struct HwConfig {
    std::string name = "default";
    std::string description;
    double clock_ghz = 1.2;
    PmuConfig pmu;
    PcuConfig pcu;
    HbmConfig hbm;
    DdrConfig ddr;
    RdnConfig rdn;
    ChipConfig chip;
    RooflineConfig roofline;
};

// Key-by-key comparison over the schema, so a new key is compared without touching this code.
bool operator==(const HwConfig& a, const HwConfig& b);
bool operator!=(const HwConfig& a, const HwConfig& b);

} // namespace steprdu::hw
