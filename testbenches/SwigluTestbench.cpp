#include "testbenches/Testbench.h"

#include <cmath>

#include <fmt/format.h>

#include "step_ops/GraphBuilder.h"
#include "util/Error.h"

namespace steprdu::tb {

namespace {

// One SwiGLU layer (the paper's Fig 8 HDL-validation workload): gate/up GEMMs with MN tiling, SiLU, Mul,
// and a down projection tiled over the intermediate dimension.
class SwigluTestbench : public Testbench {
  public:
    std::string name() const override { return "swiglu"; }
    std::string doc() const override { return "SwiGLU layer of the paper's Fig 8 (HDL validation)"; }
    std::vector<Knob> knobs() const override;
    Workload build(const Knobs& k, bool functional) const override;
};

} // namespace

using namespace step;

std::vector<Knob> SwigluTestbench::knobs() const {
    return {{"batch", "64", "rows of the input (B)"},
            {"hidden", "256", "model dimension (D)"},
            {"inter", "512", "intermediate dimension (F)"},
            {"tile_b", "32", "rows per tile (M tile of gate/up/down)"},
            {"tile_inter", "64", "intermediate columns per tile (N tile of gate/up, K tile of down)"},
            {"dtype_bytes", "4", "bytes per element of loaded tensors (4: float32, as the paper's Fig 8)"},
            {"compute_bw", "4096", "FLOPs/cycle of each compute operator"},
            {"par_dispatch", "4", "64-byte requests each off-chip operator issues per cycle"},
            {"seed", "5", "seed of the random input and weights"}};
}

Workload SwigluTestbench::build(const Knobs& k, bool functional) const {
    const std::int64_t B = k.integer("batch", 1, 1 << 20), D = k.integer("hidden", 1, 1 << 20),
                       F = k.integer("inter", 1, 1 << 22), tm = k.divisor("tile_b", B, "batch"),
                       tn = k.divisor("tile_inter", F, "inter"), bytes = k.integer("dtype_bytes", 1, 8),
                       bw = k.integer("compute_bw", 1, 1 << 30), par = k.integer("par_dispatch", 1, 1024),
                       seed = k.integer("seed", 0, 1LL << 62);
    GraphBuilder b;
    b.tensor("x", B, D, "randn", seed * 100 + 1);
    b.tensor("W_gate", D, F, "xavier", seed * 100 + 2);
    b.tensor("W_up", D, F, "xavier", seed * 100 + 3);
    b.tensor("W_down", F, D, "xavier", seed * 100 + 4);
    b.tensor("out", B, D);
    for (const char* w : {"W_gate", "W_up", "W_down"})
        b.graph().setTensorClass(w, "weights");
    const int eb = static_cast<int>(bytes), pd = static_cast<int>(par);
    const std::int64_t nb = B / tm, nf = F / tn;
    MapOptions o{bw, false};
    // x is re-read for every column tile of the weights (weight-stationary "mn_mk" schedule).
    Stream x = b.linearOffChipLoad("x", tm, D, {1, 0, 1}, {nb, nf, 1}, std::nullopt, eb, pd, "load_x");
    Stream wg =
        b.linearOffChipLoad("W_gate", D, tn, {0, 1, nf}, {nb, nf, 1}, std::nullopt, eb, pd, "load_w_gate");
    Stream wu =
        b.linearOffChipLoad("W_up", D, tn, {0, 1, nf}, {nb, nf, 1}, std::nullopt, eb, pd, "load_w_up");
    Stream gate = b.mapAccum(x, wg, Function::matmul(), InitFn::zero(tm, tn), 1, o, "gate");
    Stream up = b.mapAccum(x, wu, Function::matmul(), InitFn::zero(tm, tn), 1, o, "up");
    Stream h = b.map({b.map({gate}, Function(Function::Kind::Silu), o, "silu"), up},
                     Function(Function::Kind::Mul), o, "mul");
    // The down projection as the scripts' Linear kernel builds it when D is not tiled: a Reshape (chunk 1 at
    // rank 1) gives each row tile its own group, matched by a [nb, 1, nf] stream of down-weight tiles.
    Stream hr = b.reshape(h, 1, 1, false, "down_input");
    Stream wd =
        b.linearOffChipLoad("W_down", tn, D, {0, 1, 1}, {nb, 1, nf}, std::nullopt, eb, pd, "load_w_down");
    Stream y = b.mapAccum(hr, wd, Function::matmul(), InitFn::zero(tm, D), 1, {bw, true}, "down");
    b.linearOffChipStore(y, "out", pd, "store_out");
    Workload w;
    w.graph = b.finish();
    w.channelDepth = 1; // the Fig 8 script's depth
    w.params = {{"batch", B},       {"hidden", D},         {"inter", F},
                {"tile_b", tm},     {"tile_inter", tn},    {"dtype_bytes", bytes},
                {"compute_bw", bw}, {"par_dispatch", par}, {"seed", seed}};
    // The paper scripts' count: 3 GEMMs, the gating product, and SiLU counted as 8 per D*F element.
    w.figureFlops = 2 * B * D * F * 3 + B * F + 8 * B * D * F;
    w.check = [=](const TensorStore& mem) {
        const auto& X = mem.values("x");
        const auto& Wg = mem.values("W_gate");
        const auto& Wu = mem.values("W_up");
        const auto& Wd = mem.values("W_down");
        std::vector<double> want(B * D, 0.0), hrow(F);
        for (std::int64_t r = 0; r < B; ++r) {
            for (std::int64_t f = 0; f < F; ++f) {
                double g = 0, u = 0;
                for (std::int64_t d = 0; d < D; ++d) {
                    g += double(X[r * D + d]) * Wg[d * F + f];
                    u += double(X[r * D + d]) * Wu[d * F + f];
                }
                hrow[f] = g / (1.0 + std::exp(-g)) * u;
            }
            for (std::int64_t d = 0; d < D; ++d) {
                double s = 0;
                for (std::int64_t f = 0; f < F; ++f)
                    s += hrow[f] * Wd[f * D + d];
                want[r * D + d] = s;
            }
        }
        return relativeError(mem.values("out"), want);
    };
    (void)functional;
    return w;
}

std::unique_ptr<Testbench> makeSwigluTestbench() {
    return std::make_unique<SwigluTestbench>();
}

} // namespace steprdu::tb
