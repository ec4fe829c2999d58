#pragma once
// Where each off-chip tensor lives: its tier (HBM or DDR, from its class and memory.place.<class>), its
// base address there, and its layout (memory.layout). Tensors are laid out in graph order within their
// tier, each aligned to 4 KiB. SRAM is not a tier here: on-chip data lives in the PMUs.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hw/config/HwConfig.h"
#include "step_ops/Graph.h"

namespace steprdu::hw {

class MemoryMap {
  public:
    // Throws BadInput naming memory.place.<class> when a class is placed in a tier the configuration lacks.
    MemoryMap(const step::Graph& g, const HwConfig& cfg);
    // The tier `tensor` lives in, as an index (Tier).
    int tier(int tensor) const { return tier_.at(tensor); }
    std::int64_t base(int tensor) const { return base_.at(tensor); }
    // Bytes laid out in `tier`.
    std::int64_t used(int tier) const { return used_[tier]; }
    // The blocks `tensor` is stored in, rows x columns of elements, each block contiguous and the blocks in
    // row-major order; {0, 0} for row-major. `tiled`: the PCU's physical tile. `tile_major`: the tile of the
    // first access to the tensor (a rows x cols tile), so that every tile of that shape is one contiguous
    // range, as a compiler lays out weights for the loads that read them; row-major if that tile does not
    // divide the tensor.
    std::pair<std::int64_t, std::int64_t> block(int tensor, const step::TensorSpec& t, std::int64_t rows,
                                                std::int64_t cols);

    // The tier memory.place gives `cls`; throws BadInput if the configuration has no such tier.
    static Tier tierOf(const HwConfig& cfg, const std::string& cls);
    // Checks every tensor class's placement, used or not, so a run fails before placement and elaboration.
    static void check(const HwConfig& cfg);

  private:
    std::vector<int> tier_;
    std::vector<std::int64_t> base_;
    OffChipLayout layout_;
    std::pair<std::int64_t, std::int64_t> pcuTile_;
    std::vector<std::pair<std::int64_t, std::int64_t>> block_; // tile_major: {-1, -1} until first accessed
    std::int64_t used_[kTiers] = {0, 0};
};

} // namespace steprdu::hw
