#include "testbenches/Testbench.h"

#include <fmt/format.h>

#include "step_ops/GraphBuilder.h"

namespace steprdu::tb {

namespace {

// C = A x B with output-stationary tiling: for each output tile, the A tiles of its row and the B tiles of
// its column stream into one MapAccum that reduces over K: a calibration case for compute. With batch > 1,
// `batch` independent products one after another (a batched matmul, as attention's scores and context are
// unfused), their A, B and C matrices stacked along rows.
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
    return {{"batch", "1", "independent products, one after another (a batched matmul)"},
            {"m", "256", "rows of A and C"},
            {"k", "256", "columns of A, rows of B"},
            {"n", "256", "columns of B and C"},
            {"tile_m", "64", "rows per A and C tile"},
            {"tile_k", "64", "the reduced dimension per tile"},
            {"tile_n", "64", "columns per B and C tile"},
            {"compute_bw", "4096", "FLOPs/cycle of the matmul operator (the cycle backend's PCU count)"},
            {"par_dispatch", "4", "64-byte requests each off-chip operator issues per cycle"},
            {"elem_bytes", "4", "bytes per off-chip element (4: float32; 2 times the tiles as bf16)"},
            {"b_class", "weights", "tensor class of B (weights, activations, kv_cache): picks its tier"},
            {"regions", "1", "parallel regions, each with its own loads, matmul and store"},
            {"split", "n",
             "what the regions share out: n (B's and C's column tiles; A read by every region) "
             "| batch (the products)"},
            {"seed", "5", "seed of A and B"}};
}

Workload GemmTestbench::build(const Knobs& kn, bool functional) const {
    const std::int64_t m = kn.integer("m", 1, 1 << 20), k = kn.integer("k", 1, 1 << 20),
                       n = kn.integer("n", 1, 1 << 20), tm = kn.divisor("tile_m", m, "m"),
                       tk = kn.divisor("tile_k", k, "k"), tn = kn.divisor("tile_n", n, "n"),
                       bw = kn.integer("compute_bw", 1, 1LL << 30), par = kn.integer("par_dispatch", 1, 1024),
                       seed = kn.integer("seed", 0, 1LL << 62), nb = kn.integer("batch", 1, 1 << 20);
    const int eb = static_cast<int>(kn.integer("elem_bytes", 1, 8));
    const std::string bClass = kn.choice("b_class", tensorClasses());
    const bool byBatch = kn.choice("split", {"n", "batch"}) == "batch";
    const std::int64_t M = m / tm, K = k / tk;
    const std::int64_t R =
        byBatch ? kn.divisor("regions", nb, "batch") : kn.divisor("regions", n / tn, "n / tile_n");
    // Region r: its share of the batch (its own A, B and C) or of B's and C's column tiles (A read by all).
    const std::int64_t nbr = byBatch ? nb / R : nb, nr = byBatch ? n : n / R, N = nr / tn;
    auto named = [R](const char* t, std::int64_t r) {
        return R == 1 ? std::string(t) : fmt::format("{}{}", t, r);
    };
    GraphBuilder b;
    const int pd = static_cast<int>(par);
    for (std::int64_t r = 0; r < R; ++r) {
        const std::string A = byBatch ? named("A", r) : "A", B = named("B", r), C = named("C", r);
        if (byBatch || r == 0) b.tensor(A, nbr * m, k, "randn", seed * 100 + 1 + 10 * r);
        b.tensor(B, nbr * k, nr, "xavier", seed * 100 + 2 + 10 * r);
        b.tensor(C, nbr * m, nr);
        b.graph().setTensorClass(B, bClass);
        // Over (p, i, j, kk): A tile (p*M + i)*K + kk, B tile (p*K + kk)*N + j.
        const std::string sfx = R == 1 ? "" : fmt::format("_r{}", r);
        Stream a = b.linearOffChipLoad(A, tm, tk, {M * K, K, 0, 1}, {nbr, M, N, K}, std::nullopt, eb, pd,
                                       "load_a" + sfx);
        Stream bt = b.linearOffChipLoad(B, tk, tn, {K * N, 0, 1, N}, {nbr, M, N, K}, std::nullopt, eb, pd,
                                        "load_b" + sfx);
        Stream c =
            b.mapAccum(a, bt, Function::matmul(), InitFn::zero(tm, tn), 1, {bw, false}, "matmul" + sfx);
        b.linearOffChipStore(c, C, pd, "store_c" + sfx);
    }
    Workload w;
    w.graph = b.finish();
    w.params = {{"batch", nb},
                {"m", m},
                {"k", k},
                {"n", n},
                {"tile_m", tm},
                {"tile_k", tk},
                {"tile_n", tn},
                {"compute_bw", bw},
                {"par_dispatch", par},
                {"seed", seed},
                {"elem_bytes", eb},
                {"b_class", bClass},
                {"regions", R},
                {"split", byBatch ? "batch" : "n"}};
    w.figureFlops = 2 * nb * m * k * n;
    w.timingElemBytes = eb == 2 ? 2 : 0;
    w.check = [=](const TensorStore& mem) {
        std::vector<float> got;
        std::vector<double> want;
        for (std::int64_t r = 0; r < R; ++r) {
            const auto& A = mem.values(byBatch ? named("A", r) : "A");
            const auto& B = mem.values(named("B", r));
            const auto& C = mem.values(named("C", r));
            got.insert(got.end(), C.begin(), C.end());
            std::vector<double> part(nbr * m * nr, 0.0);
            for (std::int64_t p = 0; p < nbr; ++p)
                for (std::int64_t i = 0; i < m; ++i)
                    for (std::int64_t kk = 0; kk < k; ++kk) {
                        const double av = A[(p * m + i) * k + kk];
                        for (std::int64_t j = 0; j < nr; ++j)
                            part[(p * m + i) * nr + j] += av * B[(p * k + kk) * nr + j];
                    }
            want.insert(want.end(), part.begin(), part.end());
        }
        return relativeError(got, want);
    };
    (void)functional;
    return w;
}

std::unique_ptr<Testbench> makeGemmTestbench() {
    return std::make_unique<GemmTestbench>();
}

} // namespace steprdu::tb
