#include "hw/mem/MemoryMap.h"

#include <fmt/format.h>

#include "util/Error.h"

namespace steprdu::hw {

Tier MemoryMap::tierOf(const HwConfig& cfg, const std::string& cls) {
    const Tier place = cls == "weights"    ? cfg.memory.place_weights
                       : cls == "kv_cache" ? cfg.memory.place_kv_cache
                                           : cfg.memory.place_activations;
    if (place == Tier::Hbm) return Tier::Hbm;
    if (cfg.memory.ddr.model == TierDevice::Model::None)
        throw BadInput(
            fmt::format("memory.place.{}: {} (memory.ddr is none: the configuration '{}' has no DDR tier)",
                        cls, expectedFound("hbm", "'ddr'"), cfg.name));
    return Tier::Ddr;
}

void MemoryMap::check(const HwConfig& cfg) {
    for (const auto& cls : step::tensorClasses())
        tierOf(cfg, cls);
}

MemoryMap::MemoryMap(const step::Graph& g, const HwConfig& cfg)
    : layout_(cfg.memory.layout), pcuTile_(cfg.pcu.rows, cfg.pcu.cols), block_(g.tensors().size(), {-1, -1}) {
    check(cfg);
    for (const auto& t : g.tensors()) {
        const int k = static_cast<int>(tierOf(cfg, t.tensorClass));
        tier_.push_back(k);
        base_.push_back(used_[k]);
        // A tiled tensor is padded to whole blocks.
        std::int64_t rows = t.rows, cols = t.cols;
        if (layout_ == OffChipLayout::Tiled) {
            rows = (rows + cfg.pcu.rows - 1) / cfg.pcu.rows * cfg.pcu.rows;
            cols = (cols + cfg.pcu.cols - 1) / cfg.pcu.cols * cfg.pcu.cols;
        }
        used_[k] += (rows * cols * step::elemBytes(t.elem) + 4095) / 4096 * 4096;
    }
}

std::pair<std::int64_t, std::int64_t> MemoryMap::block(int tensor, const step::TensorSpec& t,
                                                       std::int64_t rows, std::int64_t cols) {
    if (layout_ == OffChipLayout::Tiled) return pcuTile_;
    if (layout_ == OffChipLayout::RowMajor) return {0, 0};
    auto& b = block_.at(tensor);
    if (b.first < 0) {
        const bool divides = rows > 0 && cols > 0 && t.rows % rows == 0 && t.cols % cols == 0;
        b = divides ? std::make_pair(rows, cols) : std::make_pair<std::int64_t, std::int64_t>(0, 0);
    }
    return b;
}

} // namespace steprdu::hw
