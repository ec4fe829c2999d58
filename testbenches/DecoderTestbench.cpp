#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "step_ops/GraphBuilder.h"
#include "step_ops/TensorStore.h"
#include "testbenches/DecodeAttention.h"
#include "testbenches/MoeLayer.h"
#include "testbenches/QkvGeneration.h"
#include "testbenches/Testbench.h"
#include "traces/BundledTraces.h"
#include "traces/ExpertRouting.h"
#include "traces/KvLengths.h"
#include "traces/SyntheticTraces.h"
#include "util/Error.h"

// Whole decoder layers (STeP 5.5, Fig 17): QKV generation, decode attention and the MoE fused into one graph
// per layer, the layer graph repeated with layer-specific weights and caches. No O-projection, norm or router
// GEMM, as 5.5 names none: the attention's output rows are the MoE's tokens, so hidden = heads x head_dim.
//
// The parts meet through off-chip memory, each waiting for the stores of the one before: a part's store
// acknowledgements are merged and counted into one element, which the next part's loads take as their
// reference stream. Attention finishes requests out of order (dynamic parallelization more so); it stores
// each request's output rows where they belong, and the MoE reads the rows back in token order, joining a
// token's heads into one row (RetileCol). Restoring the order on chip would need a reorder buffer as large
// as the batch's outputs; the round trip costs 2 x B x hidden bytes, well under 1% of a layer's traffic.

namespace steprdu::tb {

namespace {

class DecoderTestbench : public Testbench {
  public:
    std::string name() const override { return "decoder"; }
    std::string doc() const override {
        return "whole decoder layers (Fig 17): QKV generation, attention and MoE in one graph per layer";
    }
    std::vector<Knob> knobs() const override;
    Workload build(const Knobs& k, bool functional) const override;
    std::vector<KernelCall> kernels(const Knobs& k) const override;
};

constexpr std::int64_t kMaxFunctionalValues = 64LL << 20;

// One element once every acknowledgement of `acks` has come: the next part's loads wait for it.
step::Stream allDone(step::GraphBuilder& b, const std::vector<step::Stream>& acks, const std::string& name) {
    using namespace step;
    auto [data, from] = b.eagerMerge(acks, 0, name + "_merge");
    b.sink(from, name + "_from");
    return b.accum(b.promote(data, std::nullopt, name + "_all"), Function(Function::Kind::SignalReqAllRead),
                   InitFn::count(), 1, {}, std::nullopt, name);
}

// The layer's attention dimensions: the model's, or the knobs'.
struct HeadDims {
    std::int64_t H, G, hd, D;
};
HeadDims headDims(const Knobs& k, const HeadModel& lm) {
    HeadDims d;
    d.H = k.given("heads") ? k.integer("heads", 1, 1 << 12) : lm.heads;
    d.G = k.given("kv_heads") ? k.divisor("kv_heads", d.H, "heads") : lm.kvHeads;
    d.hd = k.given("head_dim") ? k.integer("head_dim", 1, 1 << 16) : lm.headDim;
    d.D = k.given("hidden") ? k.integer("hidden", 1, 1 << 20) : lm.hidden;
    return d;
}

} // namespace

using namespace step;

std::vector<Knob> DecoderTestbench::knobs() const {
    return {
        {"model", "mixtral",
         "mixtral | qwen | llama2 | llama3: the layer's dimensions, experts and default traces (llama2: "
         "Llama2-7B, llama3: Llama 3.1 8B, each with its dense FFN as one expert every token takes)"},
        {"variant", "optimized",
         "memory_matched | performance_matched | optimized (5.5): static interleaved attention and the "
         "MoE's memory- or performance-matched static tile (Mixtral 16 / 32, Qwen 8 / 64), or dynamic "
         "attention, dynamic tiling and, for Qwen, time-multiplexed expert regions"},
        {"layers", "1", "decoder layers, each with its own weights and KV caches"},
        {"fusion", "layer",
         "layer: one graph per layer (STeP 5.5) | operator: the unfused baseline, a program of one kernel "
         "per "
         "PyTorch-level operator, intermediates through HBM (run with `steprdu program`)"},
        {"phase", "decode",
         "fusion=operator: decode (one token per sequence) | prefill (a prompt of kv_len tokens per "
         "sequence); fusion=layer builds decode"},
        {"op_compute_bw", "65536",
         "fusion=operator: FLOPs/cycle of each kernel, shared out over its regions' compute operators"},
        {"op_regions", "16",
         "fusion=operator: parallel regions per matmul kernel, at most (16 x 128 B/cycle PMUs cover the "
         "sn40l "
         "HBM peak)"},
        {"op_par_dispatch", "24",
         "fusion=operator: 64-byte requests each kernel's off-chip operators issue per cycle (24: the sn40l "
         "HBM peak of 1536 B/cycle)"},
        {"batch", "", "tokens B: a prefix of both traces (default: the whole traces, which must agree)"},
        {"trace", "",
         "expert routing CSV, or bundled:<name> (default: bundled:<model>_b64_seed5.csv); every layer "
         "uses it"},
        {"kv_trace", "", "KV-length CSV, or bundled:<name> (default: bundled:kv_b64_seed5.csv)"},
        {"kv_len", "", "every request's KV length instead of a KV trace (batch: the routing's, or `batch`)"},
        {"hidden", "", "model dimension (default: the model's); heads x head_dim"},
        {"heads", "", "query heads (default: the model's)"},
        {"kv_heads", "", "key/value heads (default: the model's); divides heads"},
        {"head_dim", "", "head dimension (default: the model's)"},
        {"experts", "", "experts (default: the model's)"},
        {"topk", "", "experts per token (default: the model's)"},
        {"inter", "", "expert intermediate dimension (default: the model's)"},
        {"tile_n", "", "MoE rows per expert tile, or 'dynamic' (default: the variant's)"},
        {"tile_f", "",
         "MoE intermediate columns per weight tile (default: 64, or the largest divisor below)"},
        {"ffn_slices", "",
         "a dense FFN's column slices, each its own region (default: llama2/3 8, else 1); divides inter"},
        {"moe_compute_bw", "",
         "FLOPs/cycle of each MoE compute operator (default: Qwen 1024, as Figs 12/13; Mixtral as the moe "
         "testbench: 4096 static, 6400 dynamic; llama2/3 2048 for each of its slices)"},
        {"moe_matmul_bw", "",
         "FLOPs/cycle of each MoE or FFN up, gate and down matmul alone (default: moe_compute_bw); the "
         "elementwise operators keep moe_compute_bw"},
        {"regions", "",
         "MoE expert regions (default: one per expert; Qwen optimized: 32, time-multiplexed as Fig 12)"},
        {"attention_regions", "",
         "attention regions (default: the paper's four; llama2 and llama3 16, at most half the (token, KV "
         "head) requests)"},
        {"attention_compute_bw", "",
         "FLOPs/cycle of each attention compute operator (default: the artifact's 2048; llama2/3 1024, so "
         "that "
         "16 regions fit beside the rest)"},
        {"qkv_compute_bw", "",
         "FLOPs/cycle of each QKV region's matmul (default: 4096; llama2/3 2048 per group)"},
        {"qkv_tile_k", "",
         "rows of hidden per QKV x and weight tile (default: hidden, one tile; llama2/3 the largest divisor "
         "of "
         "hidden up to 1024); divides hidden"},
        {"qkv_groups", "",
         "QKV column groups, each streaming its own heads' weights (default: llama2/3 16, else 1); divides "
         "heads and kv_heads"},
        {"load_par", "",
         "64-byte requests each KV-cache and expert-weight load issues per cycle (default: the artifact's 1; "
         "llama2/3 4)"},
        {"kv_tile", "32", "KV-cache rows per attention tile"},
        {"max_n", "",
         "KV-cache row stride per request; a multiple of kv_tile and > every KV length (default: the paper's "
         "6464, or the first multiple of kv_tile from there or above the longest KV length)"},
        {"qkv_regions", "",
         "batch-parallel QKV regions (default: the paper's four, or the largest divisor of a "
         "smaller batch; llama2/3 1, their column groups parallel instead)"},
        {"elem_bytes", "2", "bytes per off-chip element (2: bf16 as the paper's runs)"},
        {"seed", "5", "seed of inputs, weights and caches"}};
}

Workload DecoderTestbench::build(const Knobs& k, bool functional) const {
    if (k.choice("phase", {"decode", "prefill"}) == "prefill" && k.str("fusion") == "layer")
        throw BadInput(
            "decoder: knob 'phase': prefill: expected fusion=operator (the fused layer is decode's "
            "graph), found fusion=layer");
    if (k.choice("fusion", {"layer", "operator"}) == "operator")
        throw BadInput("decoder: knob 'fusion': operator is a program of kernels, one per PyTorch-level "
                       "operator, not one "
                       "graph: run it with `steprdu program` (a kernel with testbench: decoder, knobs: "
                       "{fusion: operator})");
    const std::string model = k.choice("model", {"mixtral", "qwen", "llama2", "llama3"});
    const std::string variant = k.choice("variant", {"memory_matched", "performance_matched", "optimized"});
    const bool optimized = variant == "optimized";
    const int L = static_cast<int>(k.integer("layers", 1, 1024));
    const HeadModel lm = headModel(model);
    const MoeModel mm = moeModel(model);
    // The dense models' mappings are ours, not the artifact's (docs/system.md): they share their defaults.
    const bool llama = model == "llama2" || model == "llama3";
    const HeadDims dims = headDims(k, lm);
    const std::int64_t H = dims.H, G = dims.G, hd = dims.hd, D = dims.D;
    if (D != H * hd)
        throw BadInput(
            fmt::format("decoder: knob 'hidden': {} (the attention's output rows are the MoE's tokens)",
                        expectedFound(fmt::format("heads x head_dim = {}", H * hd), std::to_string(D))));
    int E = k.given("experts") ? static_cast<int>(k.integer("experts", 1, 4096)) : mm.experts;
    int K = k.given("topk") ? static_cast<int>(k.integer("topk", 1, E)) : mm.topK;
    std::int64_t F = k.given("inter") ? k.integer("inter", 1, 1 << 22) : mm.inter;
    // A dense FFN in column slices: slice s is an expert of inter / slices columns that every token takes
    // with weight 1, so the MoE's gather sums the slices' down projections into the dense result, and each
    // slice streams its own weights in its own region.
    const bool dense = E == 1 && K == 1;
    const std::int64_t slices =
        dense ? k.given("ffn_slices") ? k.divisor("ffn_slices", F, "inter") : (llama ? 8 : 1) : 1;
    if (slices > 1) {
        E = K = static_cast<int>(slices);
        F /= slices;
    }
    std::int64_t tf = std::min<std::int64_t>(64, F);
    while (F % tf)
        --tf;
    if (k.given("tile_f")) tf = k.divisor("tile_f", F, slices > 1 ? "inter / ffn_slices" : "inter");
    const int eb = static_cast<int>(k.integer("elem_bytes", 1, 8));
    const std::int64_t seed = k.integer("seed", 0, 1LL << 40);

    // The variant's attention strategy and MoE tiling (../shared/docs/experiments.md 4.5).
    const std::string strategy = optimized ? "dynamic" : "interleaved";
    std::string tile = optimized                     ? "dynamic"
                       : variant == "memory_matched" ? (model == "qwen" ? "8" : "16")
                                                     : (model == "qwen" ? "64" : "32");
    if (k.given("tile_n")) tile = k.str("tile_n");
    const bool dynamicTiles = tile == "dynamic";
    const std::int64_t T = dynamicTiles        ? 0
                           : k.given("tile_n") ? k.integer("tile_n", 1, 1 << 20)
                                               : std::stoll(tile);
    int R = E;
    if (k.given("regions"))
        R = static_cast<int>(k.divisor("regions", E, "experts"));
    else if (optimized && model == "qwen" && E % 32 == 0)
        R = 32;

    // The model's bundled routing, or a generated one when experts or topk differ from the model's.
    // A dense model (one expert) routes every token to it.
    traces::ExpertRouting routing =
        k.given("trace") ? traces::readExpertRouting(k.str("trace"), E)
        : E == mm.experts && K == mm.topK && mm.experts > 1
            ? traces::readExpertRouting(traces::bundledTrace(model + "_b64_seed5.csv"), E)
            : traces::syntheticRouting(64, E, K, static_cast<unsigned long long>(seed), 0.5);
    if (routing.topK != K)
        throw BadInput(fmt::format("decoder: knob 'trace': {}: {}", routing.source,
                                   expectedFound(fmt::format("top-{} routing (topk={})", K, K),
                                                 fmt::format("top-{}", routing.topK))));
    if (k.given("kv_len") && k.given("kv_trace"))
        throw BadInput("decoder: knobs 'kv_len' and 'kv_trace': expected one of them, found both");
    traces::KvLengths kv;
    if (k.given("kv_len")) {
        const long long len = k.integer("kv_len", 1, 1LL << 30);
        kv.source = fmt::format("kv_len={}", len);
        kv.lengths.assign(static_cast<std::size_t>(routing.batch()), len);
    } else {
        kv = traces::readKvLengths(k.given("kv_trace") ? k.str("kv_trace")
                                                       : traces::bundledTrace("kv_b64_seed5.csv"));
    }
    if (k.given("batch")) {
        const int b = static_cast<int>(k.integer("batch", 1, std::min(routing.batch(), kv.batch())));
        routing = routing.prefix(b);
        kv = kv.prefix(b);
    } else if (routing.batch() != kv.batch()) {
        throw BadInput(fmt::format(
            "decoder: knob 'kv_trace': {}: {} (the routing trace {} has {} tokens)", kv.source,
            expectedFound(fmt::format("{} requests", routing.batch()), std::to_string(kv.batch())),
            routing.source, routing.batch()));
    }
    const std::int64_t B = routing.batch();

    // Attention over (token, KV head) requests: queries_per_kv query rows each, the token's KV length.
    AttentionShape att;
    att.B = B * G;
    att.Q = H / G;
    att.hd = hd;
    att.tn = k.integer("kv_tile", 1, 1 << 16);
    const long long longest = *std::max_element(kv.lengths.begin(), kv.lengths.end());
    att.maxN = k.given("max_n") ? k.integer("max_n", 1, 1LL << 32)
                                : (std::max<long long>(6464, longest + 1) + att.tn - 1) / att.tn * att.tn;
    att.eb = eb;
    att.bw = k.given("attention_compute_bw") ? k.integer("attention_compute_bw", 1, 1LL << 30)
             : llama                         ? 1024
                                             : 2048;
    // More parallel loads per operator in the Llama mappings.
    const int loadPar = static_cast<int>(k.given("load_par") ? k.integer("load_par", 1, 1024)
                                         : llama             ? 4
                                                             : 1);
    att.loadPar = loadPar;
    for (std::int64_t t = 0; t < B; ++t)
        for (std::int64_t g = 0; g < G; ++g)
            att.len.push_back(kv.lengths[t]);
    if (att.maxN % att.tn || att.maxN < longest + 1)
        throw BadInput(
            fmt::format("decoder: knob 'max_n': {}",
                        expectedFound(fmt::format("a multiple of kv_tile={} above {}", att.tn, longest),
                                      std::to_string(att.maxN))));
    const auto regionReqs =
        splitRequests(att, strategy,
                      k.given("attention_regions") ? k.integer("attention_regions", 1, 4096)
                      : llama ? std::clamp<std::int64_t>(att.B / 2, 1, 16) // two requests a region at least
                              : 4);
    if (strategy == "dynamic" && att.B <= static_cast<std::int64_t>(regionReqs.size()))
        throw BadInput(
            fmt::format("decoder: knob 'attention_regions': {}",
                        expectedFound(fmt::format("fewer than the {} (token, KV head) requests", att.B),
                                      std::to_string(regionReqs.size()))));

    QkvShape qkv;
    qkv.hidden = D;
    qkv.heads = H;
    qkv.kvHeads = G;
    qkv.headDim = hd;
    qkv.batch = B;
    if (k.given("qkv_regions")) {
        qkv.regions = k.divisor("qkv_regions", B, "batch");
    } else {
        // The Llama column groups already pull their weights in parallel: one region per group.
        qkv.regions = llama ? 1 : std::min<std::int64_t>(4, B);
        while (B % qkv.regions)
            --qkv.regions;
    }
    if (k.given("qkv_tile_k")) {
        qkv.tileK = k.divisor("qkv_tile_k", D, "hidden");
    } else { // quarter tiles fill and drain the Llama weight pipelines a quarter as long (docs/system.md)
        qkv.tileK = llama ? std::min<std::int64_t>(D, 1024) : D;
        while (D % qkv.tileK)
            --qkv.tileK;
    }
    qkv.elemBytes = eb;
    qkv.computeBw = k.given("qkv_compute_bw") ? k.integer("qkv_compute_bw", 1, 1LL << 30)
                    : llama                   ? 2048
                                              : 4096;
    qkv.groups = k.given("qkv_groups") ? k.divisor("qkv_groups", std::gcd(H, G), "gcd(heads, kv_heads)")
                 : llama               ? std::gcd<std::int64_t>(16, std::gcd(H, G))
                                       : 1;

    MoeShape moe;
    moe.E = E;
    moe.K = K;
    moe.R = R;
    moe.D = D;
    moe.F = F;
    moe.tf = tf;
    moe.dynamic = dynamicTiles;
    moe.T = T;
    moe.eb = eb;
    // Qwen's MoE operators run at 1024 FLOP/cycle in every variant, as the time-multiplexing study (Figs 12,
    // 13) sets them: the compute comparison is then between the variants' allocations, not between the moe
    // testbench's per-figure defaults (4096 static, 6400 dynamic, 1024 time-multiplexed), which Mixtral
    // keeps.
    moe.bw = k.given("moe_compute_bw")  ? k.integer("moe_compute_bw", 1, 1LL << 40)
             : llama                    ? 2048
             : R < E || model == "qwen" ? 1024
             : dynamicTiles             ? 6400
                                        : 4096;
    moe.packBw = dynamicTiles && !k.given("moe_compute_bw") ? 1024 : moe.bw;
    moe.matmulBw = k.given("moe_matmul_bw") ? k.integer("moe_matmul_bw", 1, 1LL << 40) : moe.bw;
    moe.loadPar = loadPar;
    moe.routing = routing;

    const std::int64_t N = (H + 2 * G) * hd;
    const std::int64_t values =
        L * (D * N + 2 * att.B * att.maxN * hd + 3 * std::int64_t(E) * D * F) + (L + 1) * B * D;
    const bool withData = functional && values <= kMaxFunctionalValues;

    // Tensors, layer by layer. The weights' and caches' values are made here when functional (the check
    // regenerates them); the queries are scaled by 1/sqrt(head_dim) through their weights, as the attention
    // testbench scales its queries, so that exp without max subtraction stays in range.
    auto layerSeed = [=](int l, int which) {
        return static_cast<std::uint64_t>(seed * 100000 + l * 1000 + which);
    };
    GraphBuilder b;
    b.tensor("x", B, D, "randn", layerSeed(0, 1));
    auto name = [](int l, const std::string& n) { return fmt::format("L{}.{}", l, n); };
    auto output = [&](int l) { return l + 1 == L ? std::string("out") : name(l + 1, "x"); };
    auto qkvWeight = [=](int l) {
        auto w = step::randomNormal(D * N, layerSeed(l, 2));
        for (std::int64_t i = 0; i < D; ++i)
            for (std::int64_t c = 0; c < N; ++c)
                w[i * N + c] *= static_cast<float>((c < H * hd ? 1.0 / std::sqrt(double(hd)) : 1.0) /
                                                   std::sqrt(double(D)));
        return w;
    };
    auto moeWeight = [=](int l, int e, int which) {
        const std::int64_t rows = which == 2 ? F : D;
        auto w = step::randomNormal(rows * (which == 2 ? D : F), layerSeed(l, 10 + 3 * e + which));
        for (auto& v : w)
            v *= static_cast<float>(1.0 / std::sqrt(double(rows)));
        return w;
    };
    auto routingWeights = [=](int l) {
        return slices > 1 ? std::vector<float>(static_cast<std::size_t>(B * K), 1.0f)
                          : softmaxRoutingWeights(B, K, layerSeed(l, 3));
    };
    auto cacheValues = [=](int l, int which) {
        AttentionShape a = att;
        a.seed = static_cast<std::int64_t>(layerSeed(l, 4));
        return a.cache(which);
    };
    const int group = E / R;
    auto moeTensor = [=](int l, int which, int r) {
        return name(l, fmt::format(R == E ? "{}_{}" : "{}_r{}", kMoeWeightNames[which], r));
    };
    for (int l = 0; l < L; ++l) {
        if (withData)
            b.tensor(name(l, "W_qkv"), D, N, qkvWeight(l));
        else
            b.tensor(name(l, "W_qkv"), D, N, "randn", layerSeed(l, 2));
        b.graph().setTensorClass(name(l, "W_qkv"), "weights");
        b.tensor(name(l, "query"), B * H, hd);
        b.tensor(name(l, "k_new"), B * G, hd);
        b.tensor(name(l, "v_new"), B * G, hd);
        for (int which = 0; which < 2; ++which) {
            const std::string n = name(l, which ? "v_cache" : "k_cache");
            if (withData)
                b.tensor(n, att.B * att.maxN, hd, cacheValues(l, which));
            else
                b.tensor(n, att.B * att.maxN, hd);
            b.graph().setTensorClass(n, "kv_cache");
        }
        b.tensor(name(l, "attention_out"), B * H, hd);
        b.tensor(name(l, "routing_weights"), B, K, routingWeights(l));
        for (int r = 0; r < R; ++r)
            for (int which = 0; which < 3; ++which) {
                const std::int64_t rows = which == 2 ? F : D, cols = which == 2 ? D : F;
                const std::string n = moeTensor(l, which, r);
                if (withData) {
                    std::vector<float> v;
                    for (int j = 0; j < group; ++j) {
                        auto part = moeWeight(l, r * group + j, which);
                        v.insert(v.end(), part.begin(), part.end());
                    }
                    b.tensor(n, group * rows, cols, v);
                } else {
                    b.tensor(n, group * rows, cols, "randn", layerSeed(l, 10 + 3 * r * group + which));
                }
                b.graph().setTensorClass(n, "weights");
            }
        b.tensor(output(l), B, D);
    }

    Workload w;
    Bindings bind, rateBind;
    std::set<std::string> attentionOps;
    AttentionDepths depths;
    std::optional<Stream> layerInput; // the previous layer's stores, done
    for (int l = 0; l < L; ++l) {
        const std::string p = fmt::format("L{}.", l);
        // The parts run one after another (each waits for the previous one's stores): place and route plans
        // each part's streams over its own time.
        for (const char* part : {"qkv.", "attn.", "moe."})
            w.phases.push_back(p + part);
        b.setNamePrefix(p + "qkv.");
        std::vector<Stream> qkvAcks;
        QkvPorts qio;
        qio.x = l == 0 ? "x" : name(l, "x");
        qio.weight = name(l, "W_qkv");
        qio.query = name(l, "query");
        qio.kNew = name(l, "k_new");
        qio.vNew = name(l, "v_new");
        qio.after = layerInput;
        qio.acks = &qkvAcks;
        buildQkv(b, qkv, qio);
        b.setNamePrefix(p);
        Stream qkvDone = allDone(b, qkvAcks, "qkv_done");

        b.setNamePrefix(p + "attn.");
        const int firstAttentionOp = b.graph().numOps();
        std::vector<Stream> attentionAcks;
        AttentionPorts aio;
        aio.rows = [&](int which, const std::string&, const std::vector<std::size_t>&) {
            return name(l, which == 0 ? "query" : which == 1 ? "k_new" : "v_new");
        };
        aio.kCache = name(l, "k_cache");
        aio.vCache = name(l, "v_cache");
        aio.out = name(l, "attention_out");
        aio.after = qkvDone;
        aio.outAcks = &attentionAcks;
        const AttentionDepths d = buildDecodeAttention(b, att, strategy, regionReqs, aio, bind);
        for (int i = firstAttentionOp; i < b.graph().numOps(); ++i)
            attentionOps.insert(b.graph().op(i).name());
        depths.metadataProducers.insert(d.metadataProducers.begin(), d.metadataProducers.end());
        depths.writeBackBroadcasts.insert(d.writeBackBroadcasts.begin(), d.writeBackBroadcasts.end());

        // The join: every (token, head) output row, read back in token order and joined per token.
        b.setNamePrefix(p);
        Stream attentionDone = allDone(b, attentionAcks, "attention_done");
        // A token's H rows are contiguous: one H x head_dim tile, split into its rows and joined along
        // columns.
        Stream perToken = b.linearOffChipLoad(name(l, "attention_out"), H, hd, {1}, {B}, attentionDone, eb, 1,
                                              "load_attention_out");
        Stream heads = b.flatMap(perToken, {{"fn", "RetileRows"}, {"flatten", false}}, "split_heads");
        Stream tokens = b.accum(heads, Function(Function::Kind::RetileCol), InitFn::empty(D), 1, {},
                                TileType{1, D, ElemType::F32}, "join_heads");

        b.setNamePrefix(p + "moe.");
        std::vector<Stream> moeAcks;
        MoePorts mio;
        mio.x = tokens;
        mio.routingWeights = name(l, "routing_weights");
        mio.weight = [&](int which, int r) { return moeTensor(l, which, r); };
        mio.out = output(l);
        mio.outAcks = &moeAcks;
        const MoeGraph g = buildMoe(b, moe, mio);
        bind.insert(g.bindings.begin(), g.bindings.end());
        rateBind.insert(g.rateBindings.begin(), g.rateBindings.end());
        w.figureFlops += g.figureFlops;
        w.paddedFlops += g.paddedFlops;

        b.setNamePrefix(p);
        if (l + 1 < L) {
            layerInput = allDone(b, moeAcks, "layer_done");
        } else {
            for (std::size_t i = 0; i < moeAcks.size(); ++i)
                b.sink(moeAcks[i], fmt::format("out_ack{}", i));
        }
    }
    b.setNamePrefix("");

    w.graph = b.finish();
    w.bindings = bind;
    w.rateBindings = rateBind;
    // The moe scripts' stream depth, the attention scripts' inside the attention (1, with deeper metadata and
    // write-back FIFOs); bf16 timing.
    w.channelDepth = 2;
    for (int i = 0; i < w.graph.numOps(); ++i) {
        const Operator& op = w.graph.op(i);
        if (attentionOps.count(op.name())) w.depthByProducer[op.name()] = 1;
    }
    setAttentionDepths(w, depths);
    w.timingElemBytes = eb == 2 ? 2 : 0;
    w.params = {{"model", model},
                {"variant", variant},
                {"layers", L},
                {"batch", B},
                {"trace", routing.source},
                {"kv_trace", kv.source},
                {"hidden", D},
                {"heads", H},
                {"kv_heads", G},
                {"head_dim", hd},
                {"experts", E},
                {"topk", K},
                {"inter", F},
                {"tile_n", dynamicTiles ? nlohmann::json("dynamic") : nlohmann::json(T)},
                {"tile_f", tf},
                {"regions", R},
                {"moe_compute_bw", moe.bw},
                {"moe_matmul_bw", moe.matmulBw},
                {"attention_strategy", strategy},
                {"attention_regions", regionReqs.size()},
                {"kv_tile", att.tn},
                {"max_n", att.maxN},
                {"qkv_regions", qkv.regions},
                {"qkv_groups", qkv.groups},
                {"qkv_tile_k", qkv.tileK},
                {"qkv_compute_bw", qkv.computeBw},
                {"attention_compute_bw", att.bw},
                {"load_par", loadPar},
                {"ffn_slices", slices},
                {"elem_bytes", eb},
                {"seed", seed},
                {"functional", withData}};
    // FLOPs: QKV's GEMM, attention's per tile and per request terms (padded rows included, as the attention
    // testbench counts them), the MoE's scripts count (above).
    std::int64_t tiles = 0;
    for (std::int64_t i = 0; i < att.B; ++i)
        tiles += att.tiles(i);
    const std::int64_t perRow = 4 * att.Q * hd + 5 * att.Q;
    w.figureFlops += L * (2 * B * D * N + tiles * att.tn * perRow + att.B * (att.Q * att.tn + att.Q * hd));

    // A direct computation, layer by layer, in double: QKV, attention over each token's cached rows and its
    // new row, the heads joined, the MoE.
    w.check = [=](const TensorStore& mem) {
        std::vector<double> x(mem.values("x").begin(), mem.values("x").end());
        for (int l = 0; l < L; ++l) {
            const auto Wqkv = qkvWeight(l);
            std::vector<double> qkvOut(B * N, 0.0);
            for (std::int64_t t = 0; t < B; ++t)
                for (std::int64_t i = 0; i < D; ++i)
                    for (std::int64_t c = 0; c < N; ++c)
                        qkvOut[t * N + c] += x[t * D + i] * Wqkv[i * N + c];
            AttentionShape a = att;
            a.seed = static_cast<std::int64_t>(layerSeed(l, 4));
            std::vector<double> joined(B * D, 0.0);
            for (std::int64_t t = 0; t < B; ++t)
                for (std::int64_t g = 0; g < G; ++g) {
                    const std::size_t req = static_cast<std::size_t>(t * G + g);
                    const std::int64_t len = att.len[req];
                    std::vector<double> rows[2];
                    for (int which = 0; which < 2; ++which) {
                        auto cached = a.cachedRows(which, req);
                        rows[which].assign(cached.begin(), cached.end());
                        const std::int64_t col = (H + which * G + g) * hd;
                        for (std::int64_t d = 0; d < hd; ++d)
                            rows[which].push_back(double(float(qkvOut[t * N + col + d])));
                    }
                    for (std::int64_t i = 0; i < att.Q; ++i) {
                        const std::int64_t h = g * att.Q + i;
                        std::vector<double> num(hd, 0.0);
                        double den = 0;
                        for (std::int64_t j = 0; j <= len; ++j) {
                            double s = 0;
                            for (std::int64_t d = 0; d < hd; ++d)
                                s += double(float(qkvOut[t * N + h * hd + d])) * rows[0][j * hd + d];
                            const double e = std::exp(s);
                            den += e;
                            for (std::int64_t d = 0; d < hd; ++d)
                                num[d] += e * rows[1][j * hd + d];
                        }
                        for (std::int64_t d = 0; d < hd; ++d)
                            joined[t * D + h * hd + d] = num[d] / den;
                    }
                }
            const auto rw = routingWeights(l);
            std::vector<std::vector<float>> weights[3]; // per expert: W_up, W_gate, W_down, made once
            for (int which = 0; which < 3; ++which)
                for (int e = 0; e < E; ++e)
                    weights[which].push_back(moeWeight(l, e, which));
            std::vector<double> y(B * D, 0.0), hidden(F);
            for (std::int64_t t = 0; t < B; ++t)
                for (int j = 0; j < K; ++j) {
                    const int e = routing.rows[t][j];
                    const auto &Wu = weights[0][e], &Wg = weights[1][e], &Wd = weights[2][e];
                    for (std::int64_t f = 0; f < F; ++f) {
                        double u = 0, gt = 0;
                        for (std::int64_t d = 0; d < D; ++d) {
                            u += joined[t * D + d] * Wu[d * F + f];
                            gt += joined[t * D + d] * Wg[d * F + f];
                        }
                        hidden[f] = gt / (1.0 + std::exp(-gt)) * u;
                    }
                    for (std::int64_t d = 0; d < D; ++d) {
                        double s = 0;
                        for (std::int64_t f = 0; f < F; ++f)
                            s += hidden[f] * Wd[f * D + d];
                        y[t * D + d] += rw[t * K + j] * s;
                    }
                }
            x = y;
        }
        return relativeError(mem.values("out"), x);
    };
    return w;
}

// The unfused baseline (fusion=operator): the layer's PyTorch-level operators, each a kernel from HBM to
// HBM, as an unfused model runs them (SN40L Fig 10): the q, k and v projections, the two cache appends,
// the scores q K^T, softmax, the context P V (a batch padded to its longest KV length, as a masked batched
// matmul is), then gate and up, SiLU, the product and down. No O-projection or norms, as the fused layer
// has none. Every layer calls the same kernels with its own weights.
std::vector<KernelCall> DecoderTestbench::kernels(const Knobs& k) const {
    if (k.choice("fusion", {"layer", "operator"}) != "operator") return {};
    const std::string model = k.choice("model", {"mixtral", "qwen", "llama2", "llama3"});
    const HeadModel lm = headModel(model);
    const MoeModel mm = moeModel(model);
    const HeadDims dims = headDims(k, lm);
    const std::int64_t H = dims.H, G = dims.G, hd = dims.hd, D = dims.D;
    const std::int64_t F = k.given("inter") ? k.integer("inter", 1, 1 << 22) : mm.inter;
    const int E = k.given("experts") ? static_cast<int>(k.integer("experts", 1, 4096)) : mm.experts;
    if (E != 1)
        throw BadInput(fmt::format(
            "decoder: knob 'fusion': operator: {}",
            expectedFound("a dense model (one expert, as model=llama2)", fmt::format("{} experts", E))));
    const int L = static_cast<int>(k.integer("layers", 1, 1024));
    const std::int64_t tn = k.integer("kv_tile", 1, 1 << 16);
    const std::int64_t eb = k.integer("elem_bytes", 1, 8);
    const std::int64_t bw = k.integer("op_compute_bw", 1, 1LL << 30);
    const std::int64_t par = k.integer("op_par_dispatch", 1, 1024);
    if (k.given("kv_len") && k.given("kv_trace"))
        throw BadInput("decoder: knobs 'kv_len' and 'kv_trace': expected one of them, found both");
    std::int64_t B = 0, longest = 0;
    if (k.given("kv_len")) {
        B = k.integer("batch", 1, 1 << 20);
        longest = k.integer("kv_len", 1, 1LL << 30);
    } else {
        traces::KvLengths kv = traces::readKvLengths(
            k.given("kv_trace") ? k.str("kv_trace") : traces::bundledTrace("kv_b64_seed5.csv"));
        B = k.given("batch") ? k.integer("batch", 1, kv.batch()) : kv.batch();
        kv = kv.prefix(static_cast<int>(B));
        longest = *std::max_element(kv.lengths.begin(), kv.lengths.end());
    }
    // Decode: one token per sequence against its cache and the new row. Prefill: the prompt of kv_len
    // tokens against itself (the whole square of scores, masked, as a batched matmul computes it). Keys in
    // whole KV tiles.
    const bool prefill = k.choice("phase", {"decode", "prefill"}) == "prefill";
    const std::int64_t S = prefill ? longest : 1;
    const std::int64_t Lp = ((prefill ? longest : longest + 1) + tn - 1) / tn * tn;
    auto tileOf = [](std::int64_t n, std::int64_t cap) {
        std::int64_t t = std::min(n, cap);
        while (n % t)
            --t;
        return t;
    };
    // Every kernel's sizes as products of the knobs: checked in floating point before they are formed.
    const double scores = double(B) * double(H) * double(S) * double(Lp),
                 rowsAll = double(B) * double(G) * double(S);
    if (scores > 1e13 || rowsAll * double(hd) * 8 > 1e15)
        throw BadInput(fmt::format("decoder: knobs 'batch', 'kv_len': {}",
                                   expectedFound("at most 1e13 scores per layer for fusion=operator",
                                                 fmt::format("{:.3g}", scores))));
    const std::int64_t Q = H / G, R = B * G, T = B * S; // queries per KV head, requests, tokens
    auto str = [](std::int64_t v) { return std::to_string(v); };
    const std::vector<std::string> common = {"par_dispatch=" + str(par), "elem_bytes=" + str(eb)};
    // Each kernel splits its work over up to op_regions parallel regions (a compute operator reads its
    // inputs at one PMU's bandwidth): a projection its columns, attention its requests.
    const std::int64_t want = k.integer("op_regions", 1, 4096);
    auto gemm = [&](const std::string& name, std::int64_t batch, std::int64_t m, std::int64_t kk,
                    std::int64_t n, const std::string& bClass) {
        const bool byBatch = batch > 1;
        const std::int64_t regions = tileOf(byBatch ? batch : n, want);
        const std::int64_t tileN = tileOf(byBatch ? n : n / regions, 256);
        std::vector<std::string> kn = {"batch=" + str(batch),
                                       "m=" + str(m),
                                       "k=" + str(kk),
                                       "n=" + str(n),
                                       "tile_m=" + str(tileOf(m, 64)),
                                       "tile_k=" + str(tileOf(kk, 512)),
                                       "tile_n=" + str(tileN),
                                       "b_class=" + bClass,
                                       "regions=" + str(regions),
                                       std::string("split=") + (byBatch ? "batch" : "n"),
                                       "compute_bw=" + str(std::max<std::int64_t>(1, bw / regions))};
        kn.insert(kn.end(), common.begin(), common.end());
        return KernelCall{name, "gemm", kn};
    };
    auto elementwise = [&](const std::string& name, const std::string& op, std::int64_t rows,
                           std::int64_t cols) {
        std::vector<std::string> kn = {"op=" + op, "rows=" + str(rows), "cols=" + str(cols),
                                       "tile_rows=" + str(tileOf(rows, 8))};
        const std::int64_t regions = tileOf(rows / tileOf(rows, 8), want);
        kn.push_back("regions=" + str(regions));
        const std::int64_t ops = op == "softmax" ? 3 : 1; // exp, the row sum, the division
        kn.push_back("compute_bw=" + str(std::max<std::int64_t>(1, bw / (regions * ops))));
        kn.insert(kn.end(), common.begin(), common.end());
        return KernelCall{name, "elementwise", kn};
    };
    // A cache append copies the new rows (R x hd elements) into the cache: f32 rows of hd x eb bytes.
    const std::int64_t rowBytes = hd * eb;
    auto append = [&](const std::string& name) {
        return KernelCall{name,
                          "copy",
                          {"bytes=" + str(R * S * rowBytes),
                           "tile_rows=" + str(tileOf(R * S / tileOf(R * S, want), 64)),
                           "streams=" + str(tileOf(R * S, want)),
                           "tile_cols=" + str(std::max<std::int64_t>(1, rowBytes / 4)),
                           "par_dispatch=" + str(par), "dst_class=kv_cache"}};
    };
    if (rowBytes % 4)
        throw BadInput(fmt::format("decoder: knob 'head_dim': {} (fusion=operator appends whole f32 words)",
                                   expectedFound("head_dim x elem_bytes a multiple of 4", str(rowBytes))));
    const std::vector<KernelCall> layer = {gemm("q_proj", 1, T, D, H * hd, "weights"),
                                           gemm("k_proj", 1, T, D, G * hd, "weights"),
                                           gemm("v_proj", 1, T, D, G * hd, "weights"),
                                           append("k_cache_append"),
                                           append("v_cache_append"),
                                           gemm("scores", R, Q * S, hd, Lp, "kv_cache"),
                                           elementwise("softmax", "softmax", R * Q * S, Lp),
                                           gemm("context", R, Q * S, Lp, hd, "kv_cache"),
                                           gemm("gate_proj", 1, T, D, F, "weights"),
                                           gemm("up_proj", 1, T, D, F, "weights"),
                                           elementwise("silu", "silu", T, F),
                                           elementwise("mul", "mul", T, F),
                                           gemm("down_proj", 1, T, F, D, "weights")};
    std::vector<KernelCall> calls;
    for (int l = 0; l < L; ++l)
        calls.insert(calls.end(), layer.begin(), layer.end());
    return calls;
}

std::unique_ptr<Testbench> makeDecoderTestbench() {
    return std::make_unique<DecoderTestbench>();
}

} // namespace steprdu::tb
