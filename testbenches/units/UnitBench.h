#pragma once
// One unit alone with ideal surroundings, for architects who study a part (`steprdu unit`) and for the
// unit tests: the operator under test runs on its unit exactly as on the chip, but every input is available
// from the first cycle (or streams in at a set pace) and every output is taken at once, so the cycles measure
// the unit itself. Each bench
// elaborates SystemC: one per process (see util/ForkRun.h).
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/config/HwConfig.h"
#include "hw/mem/OffChipMemory.h"
#include "hw/sim/SimTime.h"

namespace steprdu::hw {

struct PcuBench {
    std::string function = "matmul";     // matmul | add | mul | silu | exp | rowsum
    std::int64_t m = 16, k = 16, n = 16; // matmul [m,k] x [k,n]; element-wise tiles are m x n
    std::int64_t count = 1;              // tiles streamed through
    int units = 1;                       // PCUs of the operator's group
    std::int64_t arrival = 0; // cycles each input tile takes to stream in, back to back (0: at once)
    int sharing = 1;          // operators taking turns on the PCU (pnr `shrink`), each with its own inputs
};

struct PmuBench {
    std::int64_t bytes = 65536;   // per access
    std::int64_t strideWords = 1; // distance between consecutive words (1 = sequential)
    std::int64_t count = 1;       // back-to-back accesses
    bool write = false;
};

struct AgcuBench {
    std::int64_t rows = 16, cols = 64;           // the tile
    std::int64_t tensorRows = 0, tensorCols = 0; // the tensor (0: one tile high, `cols` wide x tiles)
    int elemBytes = 2;
    std::int64_t tiles = 1;
    int parDispatch = 4;
};

// Each returns {"cycles", "busy_cycles", "stall_cycles": {...}, ...} with the unit's own figures.
nlohmann::json runPcuBench(const HwConfig& cfg, const PcuBench& b);
nlohmann::json runPmuBench(const HwConfig& cfg, const PmuBench& b);
nlohmann::json runAgcuBench(const HwConfig& cfg, const AgcuBench& b);
// The same with the memory tiers given, indexed by Tier (a scripted memory in a test).
nlohmann::json runAgcuBench(const HwConfig& cfg, const AgcuBench& b,
                            std::vector<std::unique_ptr<OffChipMemory>> tiers);

} // namespace steprdu::hw
