#include "testbenches/QkvGeneration.h"

#include <fmt/format.h>

namespace steprdu::tb {

using namespace step;

HeadModel headModel(const std::string& name) {
    if (name == "qwen") return {2048, 32, 4, 64};
    if (name == "llama2") return {4096, 32, 32, 128}; // Llama2-7B
    if (name == "llama3") return {4096, 32, 8, 128};  // Llama 3.1 8B
    return {4096, 32, 8, 128};
}

void buildQkv(GraphBuilder& b, const QkvShape& s, const QkvPorts& io) {
    const std::int64_t D = s.hidden, H = s.heads, G = s.kvHeads, hd = s.headDim, B = s.batch, R = s.regions,
                       tk = s.tileK, bw = s.computeBw, C = s.groups;
    const int eb = s.elemBytes, par = s.parDispatch;
    const std::int64_t n = H + 2 * G, kt = D / tk, rows = B / R;
    // Group c's head column blocks of the fused weight: its queries, then its keys, then its values.
    const std::int64_t hq = H / C, hk = G / C, nc = hq + 2 * hk;
    const std::int64_t heads[] = {hq, hk, hk}, allHeads[] = {H, G, G};
    const std::string outName[] = {io.query, io.kNew, io.vNew};
    const char* part_[] = {"query", "k_new", "v_new"};
    for (std::int64_t c = 0; c < C; ++c) {
        const std::string g = C == 1 ? "" : fmt::format("g{}.", c);
        Stream weights;
        if (C == 1) {
            // Over (head column block j, hidden block i): W tile i * n + j, loaded once for all regions.
            weights = b.flatten(
                b.linearOffChipLoad(io.weight, tk, hd, {1, n}, {n, kt}, std::nullopt, eb, par, "load_w_qkv"),
                1, 2);
        } else {
            std::vector<std::uint64_t> at;
            for (std::int64_t q = 0; q < 3; ++q)
                for (std::int64_t h = 0; h < heads[q]; ++h) {
                    const std::int64_t j = (q == 0 ? 0 : q == 1 ? H : H + G) + c * heads[q] + h;
                    for (std::int64_t i = 0; i < kt; ++i)
                        at.push_back(static_cast<std::uint64_t>(i * n + j));
                }
            Stream addr = b.flatten(
                b.metadataGen(at, Shape({Dim(1), Dim(static_cast<std::int64_t>(at.size()))}), g + "w_at"), 0,
                1);
            weights = b.reshape(b.randomOffChipLoad(addr, io.weight, tk, hd, eb, 0, g + "load_w_qkv", par),
                                kt, 0, false, g + "w");
        }
        // Over (j, i, region r): x tile r * kt + i, every region's rows re-read for every head. The regions'
        // tiles alternate so that each takes its x tile with the weight tile broadcast to all of them (region
        // by region, the broadcast would wait for regions whose x has not come yet, and they for it).
        Stream x = b.flatten(
            b.linearOffChipLoad(io.x, rows, tk, {0, 1, kt}, {nc, kt, R}, io.after, eb, par, g + "load_x"), 0,
            3);
        auto xs = b.parallelize(x, static_cast<int>(R), g + "split_batch");

        // Which part of the output each of the group's head column blocks is: 0 queries, 1 keys, 2 values.
        std::vector<std::vector<int>> part;
        for (std::int64_t j = 0; j < nc; ++j)
            part.push_back({j < hq ? 0 : j < hq + hk ? 1 : 2});
        for (std::int64_t r = 0; r < R; ++r) {
            const std::string p = g + fmt::format("r{}.", r);
            Stream xr = b.reshape(xs[r], kt, 0, false, p + "x"); // [nc * kt] -> [nc, kt], as the weights
            Stream y = b.mapAccum(xr, weights, Function::matmul(), InitFn::zero(rows, hd), 1, {bw, false},
                                  p + "matmul");
            Stream sel = b.flatten(b.selectGen(part, 3, Shape({Dim(1), Dim(nc)}), p + "part"), 0, 1);
            auto parts = b.partition(y, sel, 0, 3, p + "split_qkv");
            for (int q = 0; q < 3; ++q) {
                parts[q].setShape(Shape({Dim(heads[q])}));
                // One head's rows-of-tokens tile becomes rows, each stored at its (token, head) row.
                Stream rowsOut = b.retileStreamify(parts[q], true, false, p + part_[q] + "_rows");
                rowsOut.setShape(Shape({Dim(heads[q] * rows)}));
                std::vector<std::uint64_t> at;
                for (std::int64_t h = 0; h < heads[q]; ++h)
                    for (std::int64_t t = r * rows; t < (r + 1) * rows; ++t)
                        at.push_back(static_cast<std::uint64_t>(t * allHeads[q] + c * heads[q] + h));
                Stream addr =
                    b.flatten(b.metadataGen(at, Shape({Dim(1), Dim(static_cast<std::int64_t>(at.size()))}),
                                            p + part_[q] + "_at"),
                              0, 1);
                Stream ack = b.randomOffChipStore(addr, rowsOut, outName[q], eb, p + "store_" + part_[q]);
                if (io.acks)
                    io.acks->push_back(ack);
                else
                    b.sink(ack, p + part_[q] + "_ack");
            }
        }
    }
}

} // namespace steprdu::tb
