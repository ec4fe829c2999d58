#pragma once
// Where a tile of an off-chip tensor lies in memory: the burst-aligned byte ranges an AGCU requests for it,
// given the tensor's base address and the blocks it is stored in (MemoryMap::block).
#include <cstdint>
#include <vector>

#include "hw/mem/dram/ByteRange.h"
#include "step_ops/Graph.h"

namespace steprdu::hw::mem {

// The bursts that cover the tile `a` of tensor `t` (stored from byte `base`) as burst-aligned byte ranges:
// its contiguous segments rounded out to burst boundaries, merged where they touch. The tensor is row-major,
// or with `blockRows` > 0 tiled: blocks of blockRows x blockCols elements, each row-major and contiguous, the
// blocks in row-major order (partial blocks at the edges padded).
std::vector<ByteRange> burstRanges(const step::TensorSpec& t, std::int64_t base, const step::OffChipAccess& a,
                                   int burstBytes, int blockRows = 0, int blockCols = 0);
// Bursts of `burstBytes` in burst-aligned `ranges`.
std::int64_t burstCount(const std::vector<ByteRange>& ranges, int burstBytes);
// Burst-aligned `ranges` cut into `parts` runs of consecutive bursts, as even as whole bursts allow (the
// first runs get the extra bursts); a run may be empty when there are fewer bursts than parts.
std::vector<std::vector<ByteRange>> splitBursts(const std::vector<ByteRange>& ranges, int burstBytes,
                                                int parts);

} // namespace steprdu::hw::mem
