#include <cmath>

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

} // namespace

using namespace step;

std::vector<Knob> DecoderTestbench::knobs() const {
    return {
        {"model", "mixtral",
         "mixtral | qwen | llama2: the layer's dimensions, experts and default traces (llama2: Llama2-7B, "
         "its dense FFN as one expert every token takes)"},
        {"variant", "optimized",
         "memory_matched | performance_matched | optimized (5.5): static interleaved attention and the "
         "MoE's memory- or performance-matched static tile (Mixtral 16 / 32, Qwen 8 / 64), or dynamic "
         "attention, dynamic tiling and, for Qwen, time-multiplexed expert regions"},
        {"layers", "1", "decoder layers, each with its own weights and KV caches"},
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
        {"tile_f", "64", "MoE intermediate columns per weight tile"},
        {"moe_compute_bw", "",
         "FLOPs/cycle of each MoE compute operator (default: Qwen 1024, as Figs 12/13; Mixtral as the moe "
         "testbench: 4096 static, 6400 dynamic)"},
        {"regions", "",
         "MoE expert regions (default: one per expert; Qwen optimized: 32, time-multiplexed as Fig 12)"},
        {"attention_regions", "4", "attention regions (the paper's four)"},
        {"kv_tile", "32", "KV-cache rows per attention tile"},
        {"max_n", "6464", "KV-cache row stride per request; a multiple of kv_tile and > every KV length"},
        {"qkv_regions", "",
         "batch-parallel QKV regions (default: the paper's four, or the largest divisor of a "
         "smaller batch)"},
        {"elem_bytes", "2", "bytes per off-chip element (2: bf16 as the paper's runs)"},
        {"seed", "5", "seed of inputs, weights and caches"}};
}

Workload DecoderTestbench::build(const Knobs& k, bool functional) const {
    const std::string model = k.choice("model", {"mixtral", "qwen", "llama2"});
    const std::string variant = k.choice("variant", {"memory_matched", "performance_matched", "optimized"});
    const bool optimized = variant == "optimized";
    const int L = static_cast<int>(k.integer("layers", 1, 1024));
    const HeadModel lm = headModel(model);
    const MoeModel mm = moeModel(model);
    const std::int64_t H = k.given("heads") ? k.integer("heads", 1, 1 << 12) : lm.heads;
    const std::int64_t G = k.given("kv_heads") ? k.divisor("kv_heads", H, "heads") : lm.kvHeads;
    const std::int64_t hd = k.given("head_dim") ? k.integer("head_dim", 1, 1 << 16) : lm.headDim;
    const std::int64_t D = k.given("hidden") ? k.integer("hidden", 1, 1 << 20) : lm.hidden;
    if (D != H * hd)
        throw BadInput(
            fmt::format("decoder: knob 'hidden': {} (the attention's output rows are the MoE's tokens)",
                        expectedFound(fmt::format("heads x head_dim = {}", H * hd), std::to_string(D))));
    const int E = k.given("experts") ? static_cast<int>(k.integer("experts", 1, 4096)) : mm.experts;
    const int K = k.given("topk") ? static_cast<int>(k.integer("topk", 1, E)) : mm.topK;
    const std::int64_t F = k.given("inter") ? k.integer("inter", 1, 1 << 22) : mm.inter;
    const std::int64_t tf = k.divisor("tile_f", F, "inter");
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
    att.maxN = k.integer("max_n", 1, 1LL << 32);
    att.eb = eb;
    att.bw = 2048;
    for (std::int64_t t = 0; t < B; ++t)
        for (std::int64_t g = 0; g < G; ++g)
            att.len.push_back(kv.lengths[t]);
    const long long longest = *std::max_element(att.len.begin(), att.len.end());
    if (att.maxN % att.tn || att.maxN < longest + 1)
        throw BadInput(
            fmt::format("decoder: knob 'max_n': {}",
                        expectedFound(fmt::format("a multiple of kv_tile={} above {}", att.tn, longest),
                                      std::to_string(att.maxN))));
    const auto regionReqs = splitRequests(att, strategy, k.integer("attention_regions", 1, 4096));
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
        qkv.regions = std::min<std::int64_t>(4, B);
        while (B % qkv.regions)
            --qkv.regions;
    }
    qkv.tileK = D;
    qkv.elemBytes = eb;

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
             : R < E || model == "qwen" ? 1024
             : dynamicTiles             ? 6400
                                        : 4096;
    moe.packBw = dynamicTiles && !k.given("moe_compute_bw") ? 1024 : moe.bw;
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
    auto routingWeights = [=](int l) { return softmaxRoutingWeights(B, K, layerSeed(l, 3)); };
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
                {"attention_strategy", strategy},
                {"attention_regions", regionReqs.size()},
                {"kv_tile", att.tn},
                {"max_n", att.maxN},
                {"qkv_regions", qkv.regions},
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

std::unique_ptr<Testbench> makeDecoderTestbench() {
    return std::make_unique<DecoderTestbench>();
}

} // namespace steprdu::tb
