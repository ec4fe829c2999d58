#pragma once
// Where each off-chip tensor lives: its tier (HBM or DDR, from its class and memory.place.<class>) and its
// base address there. Tensors are laid out in graph order within their tier, each aligned to 4 KiB. SRAM
// is not a tier here: on-chip data lives in the PMUs.
#include <cstdint>
#include <string>
#include <vector>

#include "hw/HwConfig.h"
#include "step_ops/Graph.h"

namespace steprdu::hw {

class MemoryMap {
  public:
    enum Tier { Hbm = 0, Ddr = 1 };
    static constexpr int kTiers = 2;

    // Throws BadInput naming memory.place.<class> when a class is placed in a tier the configuration lacks.
    MemoryMap(const step::Graph& g, const HwConfig& cfg);
    int tier(int tensor) const { return tier_.at(tensor); }
    std::int64_t base(int tensor) const { return base_.at(tensor); }
    // Bytes laid out in `tier`.
    std::int64_t used(int tier) const { return used_[tier]; }

    static const char* tierName(int tier) { return tier == Hbm ? "hbm" : "ddr"; }
    // The tier memory.place gives `cls`; throws BadInput if the configuration has no such tier.
    static int tierOf(const HwConfig& cfg, const std::string& cls);
    // Checks every tensor class's placement, used or not, so a run fails before placement and elaboration.
    static void check(const HwConfig& cfg);

  private:
    std::vector<int> tier_;
    std::vector<std::int64_t> base_;
    std::int64_t used_[kTiers] = {0, 0};
};

} // namespace steprdu::hw
