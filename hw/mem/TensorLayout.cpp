#include "hw/mem/TensorLayout.h"

#include <algorithm>
#include <utility>

namespace steprdu::hw::mem {

std::vector<ByteRange> burstRanges(const step::TensorSpec& t, std::int64_t base, const step::OffChipAccess& a,
                                   int burstBytes, int blockRows, int blockCols) {
    const std::int64_t eb = a.elemBytes, tilesPerRow = t.cols / a.cols;
    const std::int64_t r0 = (a.tileIndex / tilesPerRow) * a.rows, c0 = (a.tileIndex % tilesPerRow) * a.cols;
    std::vector<std::pair<std::int64_t, std::int64_t>> segments; // (first byte, bytes), by address
    if (blockRows > 0) {
        const std::int64_t br = blockRows, bc = blockCols, blocksPerRow = (t.cols + bc - 1) / bc;
        for (std::int64_t r = r0; r < r0 + a.rows; ++r)
            for (std::int64_t c = c0; c < c0 + a.cols;) {
                const std::int64_t j = c / bc, end = std::min(c0 + a.cols, (j + 1) * bc);
                const std::int64_t block = (r / br) * blocksPerRow + j;
                segments.emplace_back(base + (block * br * bc + (r % br) * bc + (c - j * bc)) * eb,
                                      (end - c) * eb);
                c = end;
            }
        std::sort(segments.begin(), segments.end());
    } else {
        const std::int64_t pitch = t.cols * eb, len = a.cols * eb;
        const std::int64_t first = base + r0 * pitch + c0 * eb;
        if (a.cols == t.cols) // whole rows are one contiguous segment
            segments.emplace_back(first, a.rows * len);
        else
            for (std::int64_t r = 0; r < a.rows; ++r)
                segments.emplace_back(first + r * pitch, len);
    }
    std::vector<ByteRange> out;
    std::int64_t last = -1; // the last burst covered so far
    for (const auto& [s, bytes] : segments) {
        const std::int64_t b0 = s / burstBytes, b1 = (s + bytes - 1) / burstBytes;
        if (!out.empty() && b0 <= last + 1) {
            if (b1 > last) out.back().bytes += (b1 - last) * burstBytes;
        } else {
            out.push_back({static_cast<std::uint64_t>(b0 * burstBytes), (b1 - b0 + 1) * burstBytes});
        }
        last = std::max(last, b1);
    }
    return out;
}

std::int64_t burstCount(const std::vector<ByteRange>& ranges, int burstBytes) {
    std::int64_t n = 0;
    for (const auto& r : ranges)
        n += r.bytes / burstBytes;
    return n;
}

std::vector<std::vector<ByteRange>> splitBursts(const std::vector<ByteRange>& ranges, int burstBytes,
                                                int parts) {
    std::vector<std::vector<ByteRange>> out(std::max(1, parts));
    const std::int64_t total = burstCount(ranges, burstBytes);
    const std::int64_t n = static_cast<std::int64_t>(out.size());
    std::size_t part = 0;
    std::int64_t left = total / n + (0 < total % n ? 1 : 0); // bursts the current part still takes
    for (ByteRange r : ranges) {
        while (r.bytes > 0) {
            while (left == 0) {
                ++part;
                left = total / n + (std::int64_t(part) < total % n ? 1 : 0);
            }
            const std::int64_t bytes = std::min<std::int64_t>(r.bytes, left * burstBytes);
            out[part].push_back({r.address, bytes});
            left -= (bytes + burstBytes - 1) / burstBytes;
            r.address += static_cast<std::uint64_t>(bytes);
            r.bytes -= bytes;
        }
    }
    return out;
}

} // namespace steprdu::hw::mem
