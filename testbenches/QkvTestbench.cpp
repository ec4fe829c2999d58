#include "testbenches/QkvGeneration.h"
#include "testbenches/Testbench.h"

#include <fmt/format.h>

#include "step_ops/GraphBuilder.h"
#include "step_ops/TensorStore.h"

// QKV generation alone (testbenches/QkvGeneration.h has the graph), checked against x times the weight.

namespace steprdu::tb {

namespace {

class QkvTestbench : public Testbench {
  public:
    std::string name() const override { return "qkv"; }
    std::string doc() const override {
        return "QKV generation of a decoder layer: batch-parallel weight-streaming GEMM, queries retiled per "
               "KV head (Fig 17's first part)";
    }
    std::vector<Knob> knobs() const override;
    Workload build(const Knobs& k, bool functional) const override;
};

constexpr std::int64_t kMaxFunctionalValues = 64LL << 20;

} // namespace

using namespace step;

std::vector<Knob> QkvTestbench::knobs() const {
    return {
        {"model", "mixtral", "mixtral | qwen | llama2 | llama3: sets hidden, heads, kv_heads, head_dim"},
        {"hidden", "", "model dimension D (default: the model's)"},
        {"heads", "", "query heads H (default: the model's)"},
        {"kv_heads", "", "key/value heads (default: the model's); divides heads"},
        {"head_dim", "", "head dimension (default: the model's)"},
        {"batch", "64", "tokens B"},
        {"regions", "",
         "batch-parallel regions (default: the paper's four, or the largest divisor of a smaller "
         "batch); divides batch"},
        {"tile_k", "", "rows of hidden per x and weight tile (default: hidden, one tile)"},
        {"compute_bw", "4096", "FLOPs/cycle of each region's matmul"},
        {"elem_bytes", "2", "bytes per loaded and stored element (2: bf16 as the paper's runs)"},
        {"par_dispatch", "16",
         "64-byte requests the weight load issues per cycle (16: the step_eval HBM peak of 1024 B/cycle)"},
        {"seed", "5", "seed of x and the weights"}};
}

Workload QkvTestbench::build(const Knobs& k, bool functional) const {
    const std::string model = k.choice("model", {"mixtral", "qwen", "llama2", "llama3"});
    const HeadModel m = headModel(model);
    const std::int64_t D = k.given("hidden") ? k.integer("hidden", 1, 1 << 20) : m.hidden;
    const std::int64_t H = k.given("heads") ? k.integer("heads", 1, 1 << 12) : m.heads;
    const std::int64_t G = k.given("kv_heads") ? k.divisor("kv_heads", H, "heads") : m.kvHeads;
    const std::int64_t hd = k.given("head_dim") ? k.integer("head_dim", 1, 1 << 16) : m.headDim;
    const std::int64_t B = k.integer("batch", 1, 1 << 20);
    std::int64_t R = std::min<std::int64_t>(4, B);
    if (k.given("regions"))
        R = k.divisor("regions", B, "batch");
    else
        while (B % R)
            --R;
    const std::int64_t tk = k.given("tile_k") ? k.divisor("tile_k", D, "hidden") : D;
    const std::int64_t bw = k.integer("compute_bw", 1, 1LL << 40);
    const int eb = static_cast<int>(k.integer("elem_bytes", 1, 8));
    const int par = static_cast<int>(k.integer("par_dispatch", 1, 1024));
    const std::int64_t seed = k.integer("seed", 0, 1LL << 40);

    const std::int64_t N = (H + 2 * G) * hd;
    const bool withData = functional && B * D + D * N + 2 * B * N <= kMaxFunctionalValues;

    GraphBuilder b;
    b.tensor("x", B, D, "randn", static_cast<std::uint64_t>(seed * 100 + 1));
    b.tensor("W_qkv", D, N, "xavier", static_cast<std::uint64_t>(seed * 100 + 2));
    b.graph().setTensorClass("W_qkv", "weights");
    b.tensor("query", B * H, hd);
    b.tensor("k_new", B * G, hd);
    b.tensor("v_new", B * G, hd);

    QkvShape shape;
    shape.hidden = D;
    shape.heads = H;
    shape.kvHeads = G;
    shape.headDim = hd;
    shape.batch = B;
    shape.regions = R;
    shape.tileK = tk;
    shape.computeBw = bw;
    shape.elemBytes = eb;
    shape.parDispatch = par;
    buildQkv(b, shape, QkvPorts{});

    Workload w;
    w.graph = b.finish();
    w.channelDepth = 2;
    w.timingElemBytes = eb == 2 ? 2 : 0;
    w.params = {{"model", model},        {"hidden", D},      {"heads", H},          {"kv_heads", G},
                {"head_dim", hd},        {"batch", B},       {"regions", R},        {"tile_k", tk},
                {"compute_bw", bw},      {"elem_bytes", eb}, {"par_dispatch", par}, {"seed", seed},
                {"functional", withData}};
    w.figureFlops = 2 * B * D * N;
    w.check = [=](const TensorStore& mem) {
        const char* outName[] = {"query", "k_new", "v_new"};
        const std::int64_t heads[] = {H, G, G};
        const auto& X = mem.values("x");
        const auto& W = mem.values("W_qkv");
        std::vector<float> got;
        std::vector<double> want;
        for (int q = 0; q < 3; ++q) {
            const auto& out = mem.values(outName[q]);
            got.insert(got.end(), out.begin(), out.end());
            const std::int64_t first = q == 0 ? 0 : q == 1 ? H : H + G; // the part's first head column block
            for (std::int64_t t = 0; t < B; ++t)
                for (std::int64_t h = 0; h < heads[q]; ++h)
                    for (std::int64_t d = 0; d < hd; ++d) {
                        double s = 0;
                        for (std::int64_t i = 0; i < D; ++i)
                            s += double(X[t * D + i]) * W[i * N + (first + h) * hd + d];
                        want.push_back(s);
                    }
        }
        return relativeError(got, want);
    };
    return w;
}

std::unique_ptr<Testbench> makeQkvTestbench() {
    return std::make_unique<QkvTestbench>();
}

} // namespace steprdu::tb
