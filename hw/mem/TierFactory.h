#pragma once
// Builds the off-chip tiers a configuration names (memory.hbm, memory.ddr): the published simulator's HBM
// node or a DRAM tier with the memory section's controller settings, on the fabric clock of clock_ghz.
#include <memory>
#include <vector>

#include "hw/config/HwConfig.h"
#include "hw/mem/OffChipMemory.h"
#include "hw/mem/dram/MemorySystem.h"

namespace steprdu::hw::mem {

// The controller settings of the memory section; throws BadInput on inconsistent watermarks.
MemorySystemOptions memoryOptions(const HwConfig& cfg, const DramSpec& spec);
// Every tier, indexed by Tier, as modules named after them ("hbm", "ddr"); nullptr where the configuration
// has none (memory.ddr = none).
std::vector<std::unique_ptr<OffChipMemory>> makeTiers(const HwConfig& cfg);

} // namespace steprdu::hw::mem
