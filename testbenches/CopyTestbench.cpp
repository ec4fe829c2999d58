#include "testbenches/Testbench.h"

#include <fmt/format.h>

#include "step_ops/GraphBuilder.h"
#include "util/Error.h"

namespace steprdu::tb {

namespace {

// Copies `bytes` from one off-chip tensor to another through the chip, split into parallel streams of
// row-major tiles (load, then store): a calibration case for off-chip bandwidth.
class CopyTestbench : public Testbench {
  public:
    std::string name() const override { return "copy"; }
    std::string doc() const override {
        return "off-chip copy in parallel streams of tiles (load then store)";
    }
    std::vector<Knob> knobs() const override;
    Workload build(const Knobs& k, bool functional) const override;
};

} // namespace

using namespace step;

std::vector<Knob> CopyTestbench::knobs() const {
    return {{"bytes", "1048576", "bytes copied in all (a multiple of streams x tile bytes)"},
            {"tile_rows", "16", "rows per tile"},
            {"tile_cols", "64", "columns per tile (a tile holds whole rows of its stream's tensor)"},
            {"streams", "1", "parallel load/store pairs, each copying its own share"},
            {"par_dispatch", "4", "64-byte requests each off-chip operator issues per cycle"},
            {"seed", "5", "seed of the source values"},
            {"src_class", "activations",
             "tensor class of the sources (weights, activations, kv_cache): picks their tier"},
            {"dst_class", "activations", "tensor class of the destinations: picks their tier"}};
}

Workload CopyTestbench::build(const Knobs& k, bool functional) const {
    const std::int64_t bytes = k.integer("bytes", 1, 1LL << 40), tr = k.integer("tile_rows", 1, 1 << 20),
                       tc = k.integer("tile_cols", 1, 1 << 20), streams = k.integer("streams", 1, 4096),
                       par = k.integer("par_dispatch", 1, 1024), seed = k.integer("seed", 0, 1LL << 62);
    const std::int64_t tileBytes = tr * tc * 4; // f32 elements
    if (bytes % (streams * tileBytes))
        throw BadInput(fmt::format(
            "copy: knob 'bytes': {}",
            expectedFound(fmt::format("a multiple of streams x tile bytes = {} x {}", streams, tileBytes),
                          std::to_string(bytes))));
    const std::int64_t tiles = bytes / (streams * tileBytes);
    const std::string srcClass = k.choice("src_class", tensorClasses()),
                      dstClass = k.choice("dst_class", tensorClasses());
    GraphBuilder b;
    for (std::int64_t s = 0; s < streams; ++s) {
        std::string src = fmt::format("src{}", s), dst = fmt::format("dst{}", s);
        b.tensor(src, tiles * tr, tc, "randn", seed * 1000 + s);
        b.tensor(dst, tiles * tr, tc);
        b.graph().setTensorClass(src, srcClass);
        b.graph().setTensorClass(dst, dstClass);
        Stream t = b.linearOffChipLoad(src, tr, tc, {1}, {tiles}, std::nullopt, 4, static_cast<int>(par),
                                       fmt::format("load{}", s));
        b.linearOffChipStore(t, dst, static_cast<int>(par), fmt::format("store{}", s));
    }
    Workload w;
    w.graph = b.finish();
    w.params = {
        {"bytes", bytes},       {"tile_rows", tr}, {"tile_cols", tc},           {"streams", streams},
        {"par_dispatch", par},  {"seed", seed},    {"tiles_per_stream", tiles}, {"src_class", srcClass},
        {"dst_class", dstClass}};
    w.check = [streams](const TensorStore& mem) {
        std::vector<float> got;
        std::vector<double> want;
        for (std::int64_t s = 0; s < streams; ++s) {
            const auto& d = mem.values(fmt::format("dst{}", s));
            const auto& src = mem.values(fmt::format("src{}", s));
            got.insert(got.end(), d.begin(), d.end());
            want.insert(want.end(), src.begin(), src.end());
        }
        return relativeError(got, want);
    };
    (void)functional;
    return w;
}

std::unique_ptr<Testbench> makeCopyTestbench() {
    return std::make_unique<CopyTestbench>();
}

} // namespace steprdu::tb
