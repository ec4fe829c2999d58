#pragma once
// Builds the off-chip tiers a configuration names (memory.hbm, memory.ddr): the published simulator's HBM
// node or a DRAM tier with the memory section's controller settings, on the fabric clock of clock_ghz.
#include <memory>

#include "hw/config/HwConfig.h"
#include "hw/mem/OffChipMemory.h"
#include "hw/mem/dram/MemorySystem.h"

namespace steprdu::hw::mem {

// The DRAM preset `name` with the channel and mapping overrides of the tier (`hbm` or `ddr`) applied.
DramSpec tierSpec(const HwConfig& cfg, const std::string& tier);
// The controller settings of the memory section; throws BadInput on inconsistent watermarks.
MemorySystemOptions memoryOptions(const HwConfig& cfg, const DramSpec& spec);
// The tier `tier` ("hbm" or "ddr") as a module named after it, or nullptr for memory.ddr = none.
std::unique_ptr<OffChipMemory> makeTier(const HwConfig& cfg, const std::string& tier);

} // namespace steprdu::hw::mem
