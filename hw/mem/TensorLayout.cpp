#include "hw/mem/TensorLayout.h"

#include <algorithm>
#include <utility>

namespace steprdu::hw::mem {

namespace {
// Byte addresses to burst numbers: a shift when the burst is a power of two (a tile of a row-major tensor is
// thousands of segments, and a division for each end of each cost more than the rest of the work).
struct BurstIndex {
    std::int64_t bytes;
    int shift; // -1 when not a power of two
    explicit BurstIndex(std::int64_t b) : bytes(b), shift((b & (b - 1)) == 0 ? __builtin_ctzll(b) : -1) {}
    std::int64_t operator()(std::int64_t address) const {
        return shift >= 0 ? address >> shift : address / bytes;
    }
};
} // namespace

std::vector<ByteRange> burstRanges(const step::TensorSpec& t, std::int64_t base, const step::OffChipAccess& a,
                                   int burstBytes, int blockRows, int blockCols) {
    const std::int64_t eb = a.elemBytes, tilesPerRow = t.cols / a.cols;
    const std::int64_t r0 = (a.tileIndex / tilesPerRow) * a.rows, c0 = (a.tileIndex % tilesPerRow) * a.cols;
    const BurstIndex burstOf(burstBytes);
    std::vector<ByteRange> out;
    std::int64_t last = -1; // the last burst covered so far
    // Segments come in address order; each is rounded out to bursts and merged with the last range if they
    // touch.
    auto segment = [&](std::int64_t first, std::int64_t bytes) {
        const std::int64_t b0 = burstOf(first), b1 = burstOf(first + bytes - 1);
        if (!out.empty() && b0 <= last + 1) {
            if (b1 > last) out.back().bytes += (b1 - last) * burstBytes;
        } else {
            out.push_back({static_cast<std::uint64_t>(b0 * burstBytes), (b1 - b0 + 1) * burstBytes});
        }
        last = std::max(last, b1);
    };
    if (blockRows > 0) {
        // Block by block in address order (bands of blockRows rows, the blocks of a band left to right), and
        // within a block row by row; the rows a block gives whole are one segment.
        const std::int64_t br = blockRows, bc = blockCols, blocksPerRow = (t.cols + bc - 1) / bc;
        for (std::int64_t band = r0 / br; band * br < r0 + a.rows; ++band) {
            const std::int64_t ra = std::max(r0, band * br), rb = std::min(r0 + a.rows, (band + 1) * br);
            for (std::int64_t j = c0 / bc; j * bc < c0 + a.cols; ++j) {
                const std::int64_t ca = std::max(c0, j * bc), cb = std::min(c0 + a.cols, (j + 1) * bc);
                const std::int64_t at = base + ((band * blocksPerRow + j) * br * bc) * eb;
                if (cb - ca == bc) {
                    segment(at + (ra % br) * bc * eb, (rb - ra) * bc * eb);
                    continue;
                }
                for (std::int64_t r = ra; r < rb; ++r)
                    segment(at + ((r % br) * bc + (ca - j * bc)) * eb, (cb - ca) * eb);
            }
        }
    } else {
        const std::int64_t pitch = t.cols * eb, len = a.cols * eb;
        const std::int64_t first = base + r0 * pitch + c0 * eb;
        if (a.cols == t.cols) // whole rows are one contiguous segment
            segment(first, a.rows * len);
        else
            for (std::int64_t r = 0; r < a.rows; ++r)
                segment(first + r * pitch, len);
    }
    return out;
}

// The ranges are burst-aligned: their bytes add up to whole bursts, one division for all.
std::int64_t burstCount(const std::vector<ByteRange>& ranges, int burstBytes) {
    std::int64_t bytes = 0;
    for (const auto& r : ranges)
        bytes += r.bytes;
    return bytes / burstBytes;
}

std::vector<std::vector<ByteRange>> splitBursts(const std::vector<ByteRange>& ranges, int burstBytes,
                                                int parts) {
    std::vector<std::vector<ByteRange>> out(std::max(1, parts));
    const std::int64_t total = burstCount(ranges, burstBytes);
    const std::int64_t n = static_cast<std::int64_t>(out.size());
    std::size_t part = 0;
    // Bytes the current part still takes (whole bursts, as the ranges are burst-aligned).
    std::int64_t left = (total / n + (0 < total % n ? 1 : 0)) * burstBytes;
    for (ByteRange r : ranges) {
        while (r.bytes > 0) {
            while (left == 0) {
                ++part;
                left = (total / n + (std::int64_t(part) < total % n ? 1 : 0)) * burstBytes;
            }
            const std::int64_t bytes = std::min<std::int64_t>(r.bytes, left);
            out[part].push_back({r.address, bytes});
            left -= bytes;
            r.address += static_cast<std::uint64_t>(bytes);
            r.bytes -= bytes;
        }
    }
    return out;
}

} // namespace steprdu::hw::mem
