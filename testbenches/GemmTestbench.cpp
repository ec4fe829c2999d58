#include "testbenches/Testbench.h"

#include "step_ops/GraphBuilder.h"

namespace steprdu::tb {

namespace {

// C = A x B with output-stationary tiling: for each output tile, the A tiles of its row and the B tiles of
// its column stream into one MapAccum that reduces over K: a calibration case for compute.
class GemmTestbench : public Testbench {
  public:
    std::string name() const override { return "gemm"; }
    std::string doc() const override {
        return "tiled matrix product C = A x B, reduced over K per output tile";
    }
    std::vector<Knob> knobs() const override;
    Workload build(const Knobs& k, bool functional) const override;
};

} // namespace

using namespace step;

std::vector<Knob> GemmTestbench::knobs() const {
    return {{"m", "256", "rows of A and C"},
            {"k", "256", "columns of A, rows of B"},
            {"n", "256", "columns of B and C"},
            {"tile_m", "64", "rows per A and C tile"},
            {"tile_k", "64", "the reduced dimension per tile"},
            {"tile_n", "64", "columns per B and C tile"},
            {"compute_bw", "4096", "FLOPs/cycle of the matmul operator (the cycle backend's PCU count)"},
            {"par_dispatch", "4", "64-byte requests each off-chip operator issues per cycle"},
            {"seed", "5", "seed of A and B"}};
}

Workload GemmTestbench::build(const Knobs& kn, bool functional) const {
    const std::int64_t m = kn.integer("m", 1, 1 << 20), k = kn.integer("k", 1, 1 << 20),
                       n = kn.integer("n", 1, 1 << 20), tm = kn.divisor("tile_m", m, "m"),
                       tk = kn.divisor("tile_k", k, "k"), tn = kn.divisor("tile_n", n, "n"),
                       bw = kn.integer("compute_bw", 1, 1LL << 30), par = kn.integer("par_dispatch", 1, 1024),
                       seed = kn.integer("seed", 0, 1LL << 62);
    const std::int64_t M = m / tm, K = k / tk, N = n / tn;
    GraphBuilder b;
    b.tensor("A", m, k, "randn", seed * 100 + 1);
    b.tensor("B", k, n, "xavier", seed * 100 + 2);
    b.tensor("C", m, n);
    b.graph().setTensorClass("B", "weights");
    const int pd = static_cast<int>(par);
    // Over (i, j, kk): A tile i*K + kk, B tile kk*N + j.
    Stream a = b.linearOffChipLoad("A", tm, tk, {K, 0, 1}, {M, N, K}, std::nullopt, 4, pd, "load_a");
    Stream bt = b.linearOffChipLoad("B", tk, tn, {0, 1, N}, {M, N, K}, std::nullopt, 4, pd, "load_b");
    Stream c = b.mapAccum(a, bt, Function::matmul(), InitFn::zero(tm, tn), 1, {bw, false}, "matmul");
    b.linearOffChipStore(c, "C", pd, "store_c");
    Workload w;
    w.graph = b.finish();
    w.params = {{"m", m},       {"k", k},       {"n", n},           {"tile_m", tm},
                {"tile_k", tk}, {"tile_n", tn}, {"compute_bw", bw}, {"par_dispatch", par},
                {"seed", seed}};
    w.figureFlops = 2 * m * k * n;
    w.check = [=](const TensorStore& mem) {
        const auto& A = mem.values("A");
        const auto& B = mem.values("B");
        std::vector<double> want(m * n, 0.0);
        for (std::int64_t i = 0; i < m; ++i)
            for (std::int64_t kk = 0; kk < k; ++kk) {
                double av = A[i * k + kk];
                for (std::int64_t j = 0; j < n; ++j)
                    want[i * n + j] += av * B[kk * n + j];
            }
        return relativeError(mem.values("C"), want);
    };
    (void)functional;
    return w;
}

std::unique_ptr<Testbench> makeGemmTestbench() {
    return std::make_unique<GemmTestbench>();
}

} // namespace steprdu::tb
