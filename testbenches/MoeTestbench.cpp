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

struct ModelShape {
    int experts, topK;
    std::int64_t hidden, inter;
};

ModelShape modelShape(const std::string& m) {
    if (m == "qwen") return {128, 8, 2048, 768}; // Qwen3-30B-A3B
    return {8, 2, 4096, 14336};                  // Mixtral-8x7B
}

// Functional runs allocate every weight; beyond this many values the run is token-flow only.
constexpr std::int64_t kMaxFunctionalValues = 64LL << 20;

} // namespace

std::vector<Knob> MoeTestbench::knobs() const {
    return {
        {"model", "mixtral", "mixtral | qwen: sets experts, topk, hidden, inter"},
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
    const std::string model = k.choice("model", {"mixtral", "qwen"});
    ModelShape m = modelShape(model);
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
    } else if (E == m.experts && K == m.topK) {
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
    // Routing weights: softmax over each token's K random logits (the paper uses random weights too).
    {
        auto logits = randomNormal(B * K, seed * 1000 + 2);
        std::vector<float> w(B * K);
        for (std::int64_t t = 0; t < B; ++t) {
            double s = 0;
            for (int j = 0; j < K; ++j)
                s += std::exp(double(logits[t * K + j]));
            for (int j = 0; j < K; ++j)
                w[t * K + j] = static_cast<float>(std::exp(double(logits[t * K + j])) / s);
        }
        b.tensor("routing_weights", B, K, w);
    }
    const int G = E / R;
    const std::int64_t nf = F / tf;
    auto expertSeed = [&](int e, int which) {
        return static_cast<std::uint64_t>(seed * 1000 + 10 + e * 3 + which);
    };
    // A region's weight tensors: W_up / W_gate / W_down (which = 0, 1, 2), one expert's unless
    // time-multiplexed.
    const char* weightNames[] = {"W_up", "W_gate", "W_down"};
    auto weightTensor = [&](int which, int r) {
        return fmt::format(R == E ? "{}_{}" : "{}_r{}", weightNames[which], r);
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

    // Routing selectors from the trace: multi-hot per token, and one-hot per top-k slot.
    std::vector<std::vector<int>> multi;
    nlohmann::json oneHot = nlohmann::json::array();
    for (auto& row : routing.rows) {
        std::vector<int> s(row.begin(), row.end());
        std::sort(s.begin(), s.end());
        multi.push_back(s);
        for (int e : row)
            oneHot.push_back(std::vector<int>{e});
        oneHot.push_back("S1");
    }
    if (!routing.rows.empty()) oneHot.back() = "S2";
    Stream selMulti = b.selectGen(multi, E, Shape({Dim(1), Dim(B)}), "select_tokens");
    Stream selOne =
        b.source("selector", Shape({Dim(1), Dim(B), Dim(K)}), oneHot, {{"width", E}}, "select_slots");

    Stream x = b.flatten(b.linearOffChipLoad("x", 1, D, {1, 1}, {B, 1}, std::nullopt, eb, 1, "load_x"), 0, 1);
    auto xs = b.partition(x, selMulti, 0, E, "route_x");

    MapOptions o{bw, false};
    const std::int64_t packBw = dynamic && !k.given("compute_bw") ? 1024 : bw;
    std::vector<Stream> packed;
    for (int e = 0; e < E; ++e) {
        std::string p = fmt::format("e{}.", e);
        if (dynamic) {
            Stream rows = b.flatten(b.reshapeAddOuter(xs[e], 1, false, p + "reshape"), 0, 1);
            TileType tile{xs[e].shape().dims()[0].size, D, ElemType::F32};
            packed.push_back(b.accum(rows, Function(Function::Kind::RetileRow), InitFn::empty(D), 1,
                                     {packBw, false}, tile, p + "pack"));
        } else {
            Stream rows = b.flatten(b.reshapeAddOuter(xs[e], T, true, p + "reshape"), 1, 2);
            packed.push_back(b.accum(rows, Function(Function::Kind::RetileRow), InitFn::empty(D), 1,
                                     {packBw, false}, TileType{T, D, ElemType::F32}, p + "pack"));
        }
    }

    // The SwiGLU body, once per region, on a stream of packed tiles and the matching weight tiles.
    auto swiglu = [&](const std::string& p, Stream in, Stream wUp, Stream wGate, Stream wDown) {
        Stream rep = b.repeatStatic(in, nf, p + "repeat");
        Stream up = b.map({rep, wUp}, Function::matmul(), o, p + "up");
        Stream gate = b.map({rep, wGate}, Function::matmul(), o, p + "gate");
        Stream h = b.map({b.map({gate}, Function(Function::Kind::Silu), o, p + "silu"), up},
                         Function(Function::Kind::Mul), o, p + "mul");
        return b.mapAccum(h, wDown, Function::matmul(), dynamic ? InitFn::empty(D) : InitFn::zero(T, D), 1, o,
                          p + "down");
    };
    std::vector<Stream> expertOut(E);
    Bindings bind, rateBind;
    for (int e = 0; e < E; ++e) {
        bind[xs[e].shape().dims()[0].size.symName()] = counts[e];
    }
    auto tilesOf = [&](int e) { return dynamic ? (counts[e] > 0 ? 1 : 0) : (counts[e] + T - 1) / T; };
    // Time-multiplexed regions merge their experts' tiles and address the weights of the expert at hand.
    std::vector<Stream> regionIn(packed.begin(), packed.begin() + R), which, addr;
    if (R < E) {
        for (int r = 0; r < R; ++r) {
            std::string p = fmt::format("r{}.", r);
            std::vector<Stream> group(packed.begin() + r * G, packed.begin() + (r + 1) * G);
            auto [t, w] = b.eagerMerge(group, 0, p + "merge");
            regionIn[r] = t;
            which.push_back(w);
            if (dynamic) { // the region's buffers are sized for its largest dynamic tile, its rates for the
                           // mean
                long long largest = 0, rows = 0, tiles = 0;
                for (int j = 0; j < G; ++j) {
                    largest = std::max(largest, counts[r * G + j]);
                    rows += counts[r * G + j];
                    tiles += counts[r * G + j] > 0;
                }
                bind[p + "merge_rows"] = largest;
                rateBind[p + "merge_rows"] = tiles > 0 ? (rows + tiles - 1) / tiles : 0;
            }
        }
        for (int r = 0; r < R; ++r)
            addr.push_back(b.expertAddrGen(which[r], nf, 0, fmt::format("r{}.weight_addr", r)));
    }
    // The weight loads are made as the scripts make them, every region's up loads, then gate, then down: the
    // HBM node serves its readers in creation order.
    std::vector<Stream> loads[3];
    for (int w = 0; w < 3; ++w)
        for (int r = 0; r < R; ++r) {
            std::int64_t tr = w == 2 ? tf : D, tc = w == 2 ? D : tf;
            std::string name = fmt::format(R == E ? "e{}.load_{}" : "r{}.load_{}", r, weightNames[w]);
            Stream raw = R == E ? b.linearOffChipLoad(weightTensor(w, r), tr, tc, {1, 1}, {nf, 1}, packed[r],
                                                      eb, 1, name)
                                : b.randomOffChipLoad(addr[r], weightTensor(w, r), tr, tc, eb, 0, name);
            loads[w].push_back(b.flatten(raw, 0, 1));
        }
    for (int r = 0; r < R; ++r) {
        std::string p = fmt::format(R == E ? "e{}." : "r{}.", r);
        Stream y = swiglu(p, regionIn[r], loads[0][r], loads[1][r], loads[2][r]);
        if (R == E) {
            expertOut[r] = y;
            continue;
        }
        auto split = b.partition(y, which[r], 0, G, p + "split");
        for (int j = 0; j < G; ++j) {
            expertOut[r * G + j] = split[j];
            bind[split[j].shape().dims()[0].size.symName()] = tilesOf(r * G + j);
        }
    }
    // The routing weights are loaded after the expert weights, as in the scripts (whose graph gains a node
    // when it is first consumed): the HBM node serves its readers in creation order.
    Stream rw = b.linearOffChipLoad("routing_weights", 1, 1, {K, 1}, {B, K}, std::nullopt, eb, 1,
                                    "load_routing_weights");
    auto ws = b.partition(rw, selOne, 0, E, "route_w");
    for (int e = 0; e < E; ++e)
        bind[ws[e].shape().dims()[0].size.symName()] = counts[e];
    std::vector<Stream> scaled;
    for (int e = 0; e < E; ++e) {
        std::string p = fmt::format("e{}.", e);
        Stream rows = b.retileStreamify(expertOut[e], true, true, p + "unpack");
        rows.setShape(xs[e].shape()); // padding rows are dropped: exactly the expert's tokens remain
        scaled.push_back(b.map({rows, ws[e]}, Function(Function::Kind::Mul), o, p + "weight"));
    } // The gather reads its own copy of the token selectors (as a second SelectGen over the same routing
    // tensor would): fed by a Broadcast, the partition could not run ahead of the gather by more than the
    // stream depth, and the pipeline would deadlock.
    Stream selGather = b.selectGen(multi, E, Shape({Dim(1), Dim(B)}), "select_tokens_gather");
    Stream gathered = b.reassemble(scaled, selGather, 0, "gather");
    gathered.setShape(Shape({Dim(1), Dim(B), Dim(K)})); // every token gathers exactly K expert rows
    Stream y =
        b.accum(gathered, Function(Function::Kind::Add), InitFn::zero(1, D), 1, o, std::nullopt, "combine");
    b.linearOffChipStore(y, "out", 1, "store_out");
    Workload w;
    w.graph = b.finish();
    w.bindings = bind;
    w.rateBindings = rateBind;
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
    // The paper scripts' FLOP count per expert with b rows (padded rows included): 2*b*D*F*3 + b*F + 8*b*D*F.
    for (int e = 0; e < E; ++e) {
        std::int64_t rows = dynamic ? counts[e] : tilesOf(e) * T;
        w.figureFlops += rows * (14 * D * F + F);
        w.paddedFlops += (rows - counts[e]) * (14 * D * F + F);
    }
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
