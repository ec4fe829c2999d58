#include "testbenches/MoeLayer.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "step_ops/TensorStore.h"

namespace steprdu::tb {

using namespace step;

MoeModel moeModel(const std::string& name) {
    if (name == "qwen") return {128, 8, 2048, 768};   // Qwen3-30B-A3B
    if (name == "llama2") return {1, 1, 4096, 11008}; // Llama2-7B: its dense SwiGLU FFN as one expert
    if (name == "llama3") return {1, 1, 4096, 14336}; // Llama 3.1 8B, likewise
    return {8, 2, 4096, 14336};                       // Mixtral-8x7B
}

std::vector<float> softmaxRoutingWeights(std::int64_t B, int K, std::uint64_t seed) {
    auto logits = randomNormal(B * K, seed);
    std::vector<float> w(B * K);
    for (std::int64_t t = 0; t < B; ++t) {
        double s = 0;
        for (int j = 0; j < K; ++j)
            s += std::exp(double(logits[t * K + j]));
        for (int j = 0; j < K; ++j)
            w[t * K + j] = static_cast<float>(std::exp(double(logits[t * K + j])) / s);
    }
    return w;
}

MoeGraph buildMoe(GraphBuilder& b, const MoeShape& m, const MoePorts& io) {
    const int E = m.E, K = m.K, R = m.R, G = E / R, eb = m.eb;
    const std::int64_t D = m.D, F = m.F, tf = m.tf, T = m.T, nf = F / tf, bw = m.bw, packBw = m.packBw;
    const bool dynamic = m.dynamic;
    const traces::ExpertRouting& routing = m.routing;
    const std::int64_t B = routing.batch();
    const auto counts = routing.tokensPerExpert();
    MoeGraph g;

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

    Stream x =
        io.x ? *io.x
             : b.flatten(b.linearOffChipLoad(io.xTensor, 1, D, {1, 1}, {B, 1}, std::nullopt, eb, 1, "load_x"),
                         0, 1);
    auto xs = b.partition(x, selMulti, 0, E, "route_x");

    MapOptions o{bw, false}, mm{m.matmulBw, false};
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
        Stream up = b.map({rep, wUp}, Function::matmul(), mm, p + "up");
        Stream gate = b.map({rep, wGate}, Function::matmul(), mm, p + "gate");
        Stream h = b.map({b.map({gate}, Function(Function::Kind::Silu), o, p + "silu"), up},
                         Function(Function::Kind::Mul), o, p + "mul");
        return b.mapAccum(h, wDown, Function::matmul(), dynamic ? InitFn::empty(D) : InitFn::zero(T, D), 1,
                          mm, p + "down");
    };
    std::vector<Stream> expertOut(E);
    for (int e = 0; e < E; ++e) {
        g.bindings[xs[e].shape().dims()[0].size.symName()] = counts[e];
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
                g.bindings[b.namePrefix() + p + "merge_rows"] = largest;
                g.rateBindings[b.namePrefix() + p + "merge_rows"] =
                    tiles > 0 ? (rows + tiles - 1) / tiles : 0;
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
            std::string name = fmt::format(R == E ? "e{}.load_{}" : "r{}.load_{}", r, kMoeWeightNames[w]);
            Stream raw = R == E
                             ? b.linearOffChipLoad(io.weight(w, r), tr, tc, {1, 1}, {nf, 1}, packed[r], eb,
                                                   m.loadPar, name)
                             : b.randomOffChipLoad(addr[r], io.weight(w, r), tr, tc, eb, 0, name, m.loadPar);
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
            g.bindings[split[j].shape().dims()[0].size.symName()] = tilesOf(r * G + j);
        }
    }
    // The routing weights are loaded after the expert weights, as in the scripts (whose graph gains a node
    // when it is first consumed): the HBM node serves its readers in creation order.
    Stream rw = b.linearOffChipLoad(io.routingWeights, 1, 1, {K, 1}, {B, K}, std::nullopt, eb, 1,
                                    "load_routing_weights");
    auto ws = b.partition(rw, selOne, 0, E, "route_w");
    for (int e = 0; e < E; ++e)
        g.bindings[ws[e].shape().dims()[0].size.symName()] = counts[e];
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
    if (io.outAcks) { // row t at row t, acknowledged
        std::vector<std::uint64_t> rowsAt(B);
        for (std::int64_t t = 0; t < B; ++t)
            rowsAt[t] = static_cast<std::uint64_t>(t);
        Stream at = b.flatten(b.metadataGen(rowsAt, Shape({Dim(1), Dim(B)}), "out_rows"), 0, 1);
        io.outAcks->push_back(b.randomOffChipStore(at, b.flatten(y, 0, 1), io.out, eb, "store_out"));
    } else {
        b.linearOffChipStore(y, io.out, 1, "store_out");
    }
    // The paper scripts' FLOP count per expert with b rows (padded rows included): 2*b*D*F*3 + b*F + 8*b*D*F.
    for (int e = 0; e < E; ++e) {
        std::int64_t rows = dynamic ? counts[e] : tilesOf(e) * T;
        g.figureFlops += rows * (14 * D * F + F);
        g.paddedFlops += (rows - counts[e]) * (14 * D * F + F);
    }
    return g;
}

} // namespace steprdu::tb
