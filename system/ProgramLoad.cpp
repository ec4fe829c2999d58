#include "system/ProgramLoad.h"

#include <algorithm>

#include <fmt/format.h>

#include "step_ops/GraphBuilder.h"
#include "util/Error.h"

namespace steprdu::sys {

tb::Workload programLoadWorkload(std::int64_t bytes, int agcus) {
    constexpr std::int64_t kRow = 512;
    if (bytes <= 0)
        throw BadInput(
            fmt::format("program load: {}", expectedFound("a positive size", std::to_string(bytes))));
    const std::int64_t rows = (bytes + kRow - 1) / kRow;
    const std::int64_t streams = std::clamp<std::int64_t>(agcus, 1, rows);
    step::GraphBuilder b;
    for (std::int64_t s = 0; s < streams; ++s) {
        const std::int64_t mine = rows / streams + (s < rows % streams ? 1 : 0);
        const std::string t = fmt::format("config{}", s);
        // Tiles of up to 16 rows (8 KiB), whole rows of this share: a few tiles in flight per AGCU then
        // cover the round trip to memory.
        std::int64_t tile = std::min<std::int64_t>(16, mine);
        while (mine % tile)
            --tile;
        b.tensor(t, mine, kRow);
        // Configuration is read-only like weights: it lives where memory.place.weights says, which the
        // kernel timer sets to launch.program_tier for this run.
        b.graph().setTensorClass(t, "weights");
        step::Stream rowsIn = b.linearOffChipLoad(t, tile, kRow, {1}, {mine / tile}, std::nullopt, 1, 16,
                                                  fmt::format("program_load{}", s));
        b.sink(rowsIn, fmt::format("configure{}", s));
    }
    tb::Workload w;
    w.graph = b.finish();
    w.params = {{"bytes", bytes}, {"agcus", streams}};
    return w;
}

} // namespace steprdu::sys
