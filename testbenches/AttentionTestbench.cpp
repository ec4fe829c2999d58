#include "testbenches/DecodeAttention.h"
#include "testbenches/Testbench.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "step_ops/GraphBuilder.h"
#include "step_ops/TensorStore.h"
#include "traces/BundledTraces.h"
#include "traces/KvLengths.h"
#include "util/Error.h"

// Decode attention on its own (testbenches/DecodeAttention.h has the graph). `check` compares the output and
// both caches after the write-back with a direct double-precision computation.

namespace steprdu::tb {

namespace {

// Decode attention with KV-cache append, one KV-head group per request (the paper's Figs 14, 15, 21): each
// request reads its K/V cache tiles, appends the new key/value row to the last tile and writes that tile
// back, and computes softmax(q K^T) V without max subtraction. Requests are split over parallel regions
// statically (interleaved, coarse) or dynamically (dispatch to the region that finished reading first).
class AttentionTestbench : public Testbench {
  public:
    std::string name() const override { return "attention"; }
    std::string doc() const override {
        return "decode attention with KV-cache append over parallel regions: coarse/interleaved/dynamic "
               "dispatch (Figs 14, 15, 21)";
    }
    std::vector<Knob> knobs() const override;
    Workload build(const Knobs& k, bool functional) const override;
};

} // namespace

using namespace step;

namespace {

// Functional runs allocate both caches; beyond this many values the run is token-flow only.
constexpr std::int64_t kMaxFunctionalValues = 64LL << 20;

} // namespace

std::vector<Knob> AttentionTestbench::knobs() const {
    return {
        {"trace", "",
         "KV-length CSV (request,kv_len), or bundled:<name> for a bundled trace; default: "
         "bundled:kv_b64_seed5.csv"},
        {"strategy", "dynamic",
         "coarse | interleaved | dynamic: how requests are split over the regions (coarse: blocks of 16; "
         "interleaved: round robin; dynamic: to the region that finished reading first)"},
        {"regions", "4", "parallel attention regions (coarse uses min(batch/16, regions), at least 1)"},
        {"tile_n", "32", "KV-cache rows per tile"},
        {"batch", "",
         "requests B: a prefix of the trace (default: the whole trace), or every request with kv_len"},
        {"kv_len", "", "every request's KV length instead of a trace (needs batch)"},
        {"compute_bw", "2048", "FLOPs/cycle of each compute operator (fixed-cycle functions get 0)"},
        {"head_dim", "64", "head dimension (Qwen3-30B-A3B: 64)"},
        {"queries_per_kv", "8", "query heads per KV head: rows of the query tile (Qwen3-30B-A3B: 8)"},
        {"max_n", "6464",
         "KV-cache row stride per request in tokens (only spaces addresses); a multiple of tile_n and "
         "> every kv_len"},
        {"elem_bytes", "2", "bytes per element of off-chip loads and stores (2: bf16 as the paper's runs)"},
        {"seed", "5", "seed of queries, new rows and cache contents"}};
}

Workload AttentionTestbench::build(const Knobs& k, bool functional) const {
    const std::string strategy = k.choice("strategy", {"coarse", "interleaved", "dynamic"});
    AttentionShape c;
    const std::int64_t regionsKnob = k.integer("regions", 1, 4096);
    c.tn = k.integer("tile_n", 1, 1 << 16);
    c.bw = k.integer("compute_bw", 1, 1LL << 40);
    c.hd = k.integer("head_dim", 1, 1 << 16);
    c.Q = k.integer("queries_per_kv", 1, 1 << 16);
    c.maxN = k.integer("max_n", 1, 1LL << 32);
    c.eb = k.integer("elem_bytes", 1, 8);
    c.seed = k.integer("seed", 0, 1LL << 40);

    traces::KvLengths kv;
    if (k.given("kv_len")) {
        if (k.given("trace"))
            throw BadInput("attention: knobs 'kv_len' and 'trace': expected one of them, found both");
        if (!k.given("batch"))
            throw BadInput("attention: knob 'kv_len': expected 'batch' with it, found none");
        const long long len = k.integer("kv_len", 1, 1LL << 30);
        kv.source = fmt::format("kv_len={}", len);
        kv.lengths.assign(static_cast<std::size_t>(k.integer("batch", 1, 1 << 24)), len);
    } else {
        kv = traces::readKvLengths(k.given("trace") ? k.str("trace")
                                                    : traces::bundledTrace("kv_b64_seed5.csv"));
        if (k.given("batch")) kv = kv.prefix(static_cast<int>(k.integer("batch", 1, kv.batch())));
    }
    c.len = kv.lengths;
    c.B = kv.batch();
    const long long maxLen = *std::max_element(c.len.begin(), c.len.end());
    if (c.maxN % c.tn)
        throw BadInput(
            fmt::format("attention: knob 'max_n': {}",
                        expectedFound(fmt::format("a multiple of tile_n={}", c.tn), std::to_string(c.maxN))));
    if (c.maxN < maxLen + 1)
        throw BadInput(
            fmt::format("attention: knob 'max_n': {} (the longest request of {} has kv_len {}, plus the "
                        "appended row)",
                        expectedFound(fmt::format("at least {}", maxLen + 1), std::to_string(c.maxN)),
                        kv.source, maxLen));

    const auto regionReqs = splitRequests(c, strategy, regionsKnob);
    const int R = static_cast<int>(regionReqs.size());
    if (strategy == "dynamic" && c.B <= R)
        throw BadInput(
            fmt::format("attention: dynamic dispatch needs more requests than regions; {}",
                        expectedFound(fmt::format("batch > regions = {}", R), std::to_string(c.B))));

    std::int64_t totalTiles = 0;
    for (std::int64_t i = 0; i < c.B; ++i)
        totalTiles += c.tiles(i);
    const std::int64_t values = 2 * c.B * c.maxN * c.hd + 2 * c.B * c.Q * c.hd + 2 * c.B * c.hd;
    const bool withData = functional && values <= kMaxFunctionalValues;

    GraphBuilder b;
    auto tensor = [&](const std::string& n, std::int64_t rows, std::vector<float> v) {
        if (withData)
            b.tensor(n, rows, c.hd, std::move(v));
        else
            b.tensor(n, rows, c.hd);
    };
    const auto q = withData ? c.query() : std::vector<float>{};
    const std::vector<float> newRows[2] = {withData ? c.newRows(0) : std::vector<float>{},
                                           withData ? c.newRows(1) : std::vector<float>{}};
    tensor("k_cache", c.B * c.maxN, withData ? c.cache(0) : std::vector<float>{});
    tensor("v_cache", c.B * c.maxN, withData ? c.cache(1) : std::vector<float>{});
    b.graph().setTensorClass("k_cache", "kv_cache");
    b.graph().setTensorClass("v_cache", "kv_cache");
    b.tensor("out", c.B * c.Q, c.hd);

    // The query and new rows of a list of requests (all, or a coarse region's), with their values when
    // functional.
    AttentionPorts io;
    io.rows = [&](int which, const std::string& suffix, const std::vector<std::size_t>& reqs) {
        const char* name[] = {"query", "k_new", "v_new"};
        const std::int64_t n = static_cast<std::int64_t>(reqs.size()), rows = which == 0 ? c.Q : 1;
        std::vector<float> v;
        if (withData)
            for (auto i : reqs) {
                const auto& src = which == 0 ? q : newRows[which - 1];
                v.insert(v.end(), src.begin() + i * rows * c.hd, src.begin() + (i + 1) * rows * c.hd);
            }
        tensor(name[which] + suffix, n * rows, v);
        return name[which] + suffix;
    };
    Bindings bind;
    const AttentionDepths depths = buildDecodeAttention(b, c, strategy, regionReqs, io, bind);

    Workload w;
    w.graph = b.finish();
    w.bindings = bind;
    // The attention scripts' timing settings: stream depth 1, except the Broadcasts of the per-region
    // metadata (16) and the K/V write-back FIFOs (4); bf16 timing.
    w.channelDepth = 1;
    w.timingElemBytes = c.eb == 2 ? 2 : 0;
    setAttentionDepths(w, depths);
    w.params = {{"trace", kv.source},    {"strategy", strategy}, {"regions", R},     {"tile_n", c.tn},
                {"batch", c.B},          {"compute_bw", c.bw},   {"head_dim", c.hd}, {"queries_per_kv", c.Q},
                {"max_n", c.maxN},       {"elem_bytes", c.eb},   {"seed", c.seed},   {"kv_tiles", totalTiles},
                {"functional", withData}};

    // FLOPs the graph executes, padded cache rows included: per tile q K^T (2*Q*hd*tile_n), exp (4*Q*tile_n),
    // (exp) V (2*Q*tile_n*hd) and the tile-wise sum of exp (Q*tile_n); per request the row sum (Q*tile_n) and
    // the division (Q*hd). paddedFlops is the per-tile part spent on the padding rows of each last tile.
    const std::int64_t perRow = 4 * c.Q * c.hd + 5 * c.Q;
    w.figureFlops = totalTiles * c.tn * perRow + c.B * (c.Q * c.tn + c.Q * c.hd);
    for (std::int64_t i = 0; i < c.B; ++i)
        w.paddedFlops += c.padded(i) * perRow;

    w.check = [c](const TensorStore& mem) {
        const auto& got = mem.values("out");
        const auto q = c.query();
        const std::vector<float> newRow[2] = {c.newRows(0), c.newRows(1)};
        std::vector<double> want(c.B * c.Q * c.hd, 0.0);
        double cacheErr[2] = {0, 0}, cacheNorm[2] = {0, 0};
        std::vector<double> num(c.hd);
        for (std::int64_t i = 0; i < c.B; ++i) {
            const std::int64_t L = c.len[i];
            std::vector<float> rows[2];
            for (int which = 0; which < 2; ++which) {
                rows[which] = c.cachedRows(which, i);
                rows[which].insert(rows[which].end(), newRow[which].begin() + i * c.hd,
                                   newRow[which].begin() + (i + 1) * c.hd);
                const auto& cache = mem.values(which == 0 ? "k_cache" : "v_cache");
                for (std::int64_t j = 0; j < c.maxN; ++j)
                    for (std::int64_t d = 0; d < c.hd; ++d) {
                        double e = j <= L ? rows[which][j * c.hd + d] : 0.0;
                        double g = cache[(i * c.maxN + j) * c.hd + d];
                        cacheErr[which] += (g - e) * (g - e);
                        cacheNorm[which] += e * e;
                    }
            }
            for (std::int64_t r = 0; r < c.Q; ++r) {
                const float* qr = &q[(i * c.Q + r) * c.hd];
                std::fill(num.begin(), num.end(), 0.0);
                double den = 0;
                for (std::int64_t j = 0; j <= L; ++j) {
                    double s = 0;
                    for (std::int64_t d = 0; d < c.hd; ++d)
                        s += double(qr[d]) * rows[0][j * c.hd + d];
                    double e = std::exp(s);
                    den += e;
                    for (std::int64_t d = 0; d < c.hd; ++d)
                        num[d] += e * rows[1][j * c.hd + d];
                }
                for (std::int64_t d = 0; d < c.hd; ++d)
                    want[(i * c.Q + r) * c.hd + d] = num[d] / den;
            }
        }
        double err = relativeError(got, want);
        for (int which = 0; which < 2; ++which)
            err = std::max(err, std::sqrt(cacheErr[which] / std::max(cacheNorm[which], 1e-300)));
        return err;
    };
    return w;
}

std::unique_ptr<Testbench> makeAttentionTestbench() {
    return std::make_unique<AttentionTestbench>();
}

} // namespace steprdu::tb
