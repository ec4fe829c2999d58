#include "testbenches/MoeLayer.h"
#include "testbenches/Testbench.h"

#include <cmath>

#include <fmt/format.h>

#include "step_ops/GraphBuilder.h"
#include "step_ops/TensorStore.h"
#include "traces/BundledTraces.h"
#include "traces/ExpertRouting.h"
#include "traces/SyntheticTraces.h"
#include "util/Error.h"

namespace steprdu::tb {

namespace {

// A mixture-of-experts layer with SwiGLU experts (the paper's Figs 9, 10, 12, 13): static or dynamic tiling
// of each expert's tokens, and optionally fewer parallel regions than experts (configuration
// time-multiplexing).
class MoeTestbench : public Testbench {
  public:
    std::string name() const override { return "moe"; }
    std::string doc() const override {
        return "MoE layer with SwiGLU experts: static/dynamic tiling (Figs 9, 10), time-multiplexing (Figs "
               "12, 13)";
    }
    std::vector<Knob> knobs() const override;
    Workload build(const Knobs& k, bool functional) const override;
};

} // namespace

using namespace step;

namespace {

// Functional runs allocate every weight; beyond this many values the run is token-flow only.
constexpr std::int64_t kMaxFunctionalValues = 64LL << 20;

} // namespace

std::vector<Knob> MoeTestbench::knobs() const {
    return {
        {"model", "mixtral",
         "mixtral | qwen | llama2 | llama3: sets experts, topk, hidden, inter (llama2, llama3: the dense FFN "
         "as one expert)"},
        {"experts", "", "number of experts E (default: the model's)"},
        {"topk", "", "experts per token K (default: the model's)"},
        {"hidden", "", "model dimension D (default: the model's)"},
        {"inter", "", "expert intermediate dimension F (default: the model's)"},
        {"batch", "", "tokens B: a prefix of the trace (default: the whole trace)"},
        {"tile_n", "16", "rows per expert tile: an integer (static tiling, padded) or 'dynamic'"},
        {"tile_f", "64", "intermediate columns per weight tile"},
        {"trace", "",
         "routing CSV (token,topk0..), or bundled:<name> for a bundled trace; default: the model's "
         "(bundled:mixtral_b64_seed5.csv, bundled:qwen_b64_seed5.csv), or a generated one when E/K "
         "differ from the model's"},
        {"regions", "", "parallel expert regions (default: experts; fewer = time-multiplexing)"},
        {"compute_bw", "",
         "FLOPs/cycle per compute operator (default 4096 static, 6400 dynamic, 1024 "
         "time-multiplexed)"},
        {"elem_bytes", "2",
         "bytes per loaded element (2: bf16 as the paper's runs, which also time every f32 tile as bf16)"},
        {"channel_depth", "2", "stream FIFO depth of the timed backends (0 = unbounded)"},
        {"seed", "5", "seed of inputs, weights and routing weights"}};
}

Workload MoeTestbench::build(const Knobs& k, bool functional) const {
    const std::string model = k.choice("model", {"mixtral", "qwen", "llama2", "llama3"});
    const MoeModel m = moeModel(model);
    const int E = k.given("experts") ? static_cast<int>(k.integer("experts", 1, 4096)) : m.experts;
    const int K = k.given("topk") ? static_cast<int>(k.integer("topk", 1, E)) : m.topK;
    const std::int64_t D = k.given("hidden") ? k.integer("hidden", 1, 1 << 20) : m.hidden;
    const std::int64_t F = k.given("inter") ? k.integer("inter", 1, 1 << 22) : m.inter;
    const std::int64_t tf = k.divisor("tile_f", F, "inter");
    const bool dynamic = k.str("tile_n") == "dynamic";
    const std::int64_t T = dynamic ? 0 : k.integer("tile_n", 1, 1 << 20);
    const int R = k.given("regions") ? static_cast<int>(k.divisor("regions", E, "experts")) : E;
    const int eb = static_cast<int>(k.integer("elem_bytes", 1, 8));
    const std::int64_t seed = k.integer("seed", 0, 1LL << 40);
    const std::int64_t bw = k.given("compute_bw") ? k.integer("compute_bw", 1, 1LL << 40)
                                                  : (R < E     ? 1024
                                                     : dynamic ? 6400
                                                               : 4096);

    traces::ExpertRouting routing;
    if (k.given("trace")) {
        routing = traces::readExpertRouting(k.str("trace"), E);
        if (routing.topK != K)
            throw BadInput(fmt::format("{}: {}", k.str("trace"),
                                       expectedFound(fmt::format("top-{} routing (topk={})", K, K),
                                                     fmt::format("top-{}", routing.topK))));
    } else if (E == m.experts && K == m.topK && m.experts > 1) {
        routing = traces::readExpertRouting(traces::bundledTrace(model + "_b64_seed5.csv"), E);
    } else {
        routing = traces::syntheticRouting(64, E, K, static_cast<unsigned long long>(seed), 0.5);
    }
    if (k.given("batch")) routing = routing.prefix(static_cast<int>(k.integer("batch", 1, routing.batch())));
    const std::int64_t B = routing.batch();
    const auto counts = routing.tokensPerExpert();

    std::int64_t weightValues = 3 * E * D * F + 2 * B * D;
    const bool withData = functional && weightValues <= kMaxFunctionalValues;

    GraphBuilder b;
    b.tensor("x", B, D, "randn", seed * 1000 + 1);
    b.tensor("out", B, D);
    b.tensor("routing_weights", B, K, softmaxRoutingWeights(B, K, seed * 1000 + 2));
    const int G = E / R;
    auto expertSeed = [&](int e, int which) {
        return static_cast<std::uint64_t>(seed * 1000 + 10 + e * 3 + which);
    };
    // A region's weight tensors: W_up / W_gate / W_down (which = 0, 1, 2), one expert's unless
    // time-multiplexed.
    auto weightTensor = [&](int which, int r) {
        return fmt::format(R == E ? "{}_{}" : "{}_r{}", kMoeWeightNames[which], r);
    };
    for (int r = 0; r < R; ++r) {
        // A region's weights: its experts' matrices concatenated along dim 0 (one expert when R == E).
        for (int which = 0; which < 3; ++which) {
            std::int64_t rows = which == 2 ? F : D, cols = which == 2 ? D : F;
            std::string n = weightTensor(which, r);
            if (!withData) {
                b.tensor(n, G * rows, cols, "randn", expertSeed(r * G, which));
                b.graph().setTensorClass(n, "weights");
                continue;
            }
            std::vector<float> v;
            for (int j = 0; j < G; ++j) {
                auto part = randomNormal(rows * cols, expertSeed(r * G + j, which));
                for (auto& x : part)
                    x *= static_cast<float>(1.0 / std::sqrt(double(rows)));
                v.insert(v.end(), part.begin(), part.end());
            }
            b.tensor(n, G * rows, cols, v);
            b.graph().setTensorClass(n, "weights");
        }
    }

    MoeShape shape;
    shape.E = E;
    shape.K = K;
    shape.R = R;
    shape.D = D;
    shape.F = F;
    shape.tf = tf;
    shape.dynamic = dynamic;
    shape.T = T;
    shape.eb = eb;
    shape.bw = bw;
    shape.matmulBw = bw;
    shape.packBw = dynamic && !k.given("compute_bw") ? 1024 : bw;
    shape.routing = routing;
    MoePorts io;
    io.weight = weightTensor;
    const MoeGraph part = buildMoe(b, shape, io);
    Workload w;
    w.graph = b.finish();
    w.bindings = part.bindings;
    w.rateBindings = part.rateBindings;
    w.channelDepth = k.integer("channel_depth", 0, 1 << 20);
    w.timingElemBytes = eb == 2 ? 2 : 0;
    w.params = {{"model", model},
                {"experts", E},
                {"topk", K},
                {"hidden", D},
                {"inter", F},
                {"batch", B},
                {"tile_n", dynamic ? nlohmann::json("dynamic") : nlohmann::json(T)},
                {"tile_f", tf},
                {"trace", routing.source},
                {"regions", R},
                {"compute_bw", bw},
                {"elem_bytes", eb},
                {"seed", seed},
                {"channel_depth", w.channelDepth},
                {"functional", withData}};
    w.figureFlops = part.figureFlops;
    w.paddedFlops = part.paddedFlops;
    w.check = [=](const TensorStore& mem) {
        const auto& X = mem.values("x");
        const auto& RW = mem.values("routing_weights");
        std::vector<double> want(B * D, 0.0), h(F);
        for (std::int64_t t = 0; t < B; ++t) {
            for (int j = 0; j < K; ++j) {
                int e = routing.rows[t][j], r = e / G, local = e % G;
                auto name = [&](const char* n) {
                    return R == E ? fmt::format("{}_{}", n, e) : fmt::format("{}_r{}", n, r);
                };
                const auto& Wu = mem.values(name("W_up"));
                const auto& Wg = mem.values(name("W_gate"));
                const auto& Wd = mem.values(name("W_down"));
                for (std::int64_t f = 0; f < F; ++f) {
                    double u = 0, g = 0;
                    for (std::int64_t d = 0; d < D; ++d) {
                        u += double(X[t * D + d]) * Wu[(local * D + d) * F + f];
                        g += double(X[t * D + d]) * Wg[(local * D + d) * F + f];
                    }
                    h[f] = g / (1.0 + std::exp(-g)) * u;
                }
                for (std::int64_t d = 0; d < D; ++d) {
                    double s = 0;
                    for (std::int64_t f = 0; f < F; ++f)
                        s += h[f] * Wd[(local * F + f) * D + d];
                    want[t * D + d] += RW[t * K + j] * s;
                }
            }
        }
        return relativeError(mem.values("out"), want);
    };
    return w;
}

std::unique_ptr<Testbench> makeMoeTestbench() {
    return std::make_unique<MoeTestbench>();
}

} // namespace steprdu::tb
