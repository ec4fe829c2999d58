#include "testbenches/DecodeAttention.h"

#include <fmt/format.h>

namespace steprdu::tb {

using namespace step;

namespace {

// The per-request streams one region consumes, shaped as in the artifact: q, k_new and v_new are [n, 1]
// (a tile per request, each closed by S1); idx, tiles (the request's cache-tile count, "seq_len") and offset
// (L mod tile_n) are rank-0 [n] metadata streams.
struct RegionIn {
    Stream q, kNew, vNew, idx, tiles, offset;
};

struct Region {
    Stream kTiles; // the K-cache tile stream as loaded (the dynamic strategy's "all K tiles read" signal)
};

// One region. `req` is its request count, `kvTiles` the cache tiles it reads per cache; per-tile streams are
// [req, kv~] where the ragged kv~ counts the region's tiles across all its requests.
Region regionPipeline(GraphBuilder& b, const AttentionShape& c, const std::string& p, const RegionIn& in,
                      const Dim& req, std::int64_t kvTiles, const AttentionPorts& io, Bindings& bind,
                      std::set<std::string>& writeBackBroadcasts) {
    const std::string sym = b.namePrefix() + p + "kv_tiles";
    const Dim kv(Expr::sym(sym), DimKind::Ragged);
    bind[sym] = kvTiles;
    const Shape perTile({req, kv});
    const MapOptions o{c.bw, false};
    const int eb = static_cast<int>(c.eb);
    Region region;

    auto cacheSide = [&](const std::string& w, Stream newRow) {
        Stream addr = b.cacheReadAddrGen(in.idx, in.tiles, c.rowOffset(), p + w + "_read_addr");
        addr.setShape(perTile);
        Stream tiles = b.randomOffChipLoad(addr, w == "k" ? io.kCache : io.vCache, c.tn, c.hd, eb, 0,
                                           p + "load_" + w, c.loadPar);
        if (w == "k") region.kTiles = tiles;
        // The last tile of each request (selector 0) gets the new row; the others (selector 1) pass by.
        Stream sel = b.filterLastTile(in.tiles, p + w + "_last_tile");
        sel.setShape(perTile);
        auto parts = b.partition(tiles, sel, 0, 2, p + w + "_split");
        parts[0].setShape(Shape({req}));
        parts[1].setShape(Shape({Dim(kv.size - req.size, DimKind::Ragged)}));
        Stream at =
            b.map({parts[0], in.offset}, Function(Function::Kind::SetOffset), {}, p + w + "_set_offset");
        Stream appended = b.map({at, b.flatten(newRow, 0, 1, p + w + "_new_row")},
                                Function(Function::Kind::RowWiseAppend), {}, p + w + "_append");
        // The write-back reads the appended tile through its own deeper FIFO (the artifact's one-consumer
        // Broadcast with the cache write-back depth).
        Stream toStore = b.add("Broadcast", {{"num_consumers", 1}}, {appended}, p + w + "_write_back")[0];
        writeBackBroadcasts.insert(b.namePrefix() + p + w + "_write_back");
        Stream waddr =
            b.map({in.idx, in.tiles}, Function::cacheWriteAddrGen(c.rowOffset()), {}, p + w + "_write_addr");
        b.sink(b.randomOffChipStore(waddr, toStore, w == "k" ? io.kCache : io.vCache, eb, p + "store_" + w),
               p + w + "_store_ack");
        Stream full = b.reassemble({appended, parts[1]}, sel, 0, p + w + "_merge");
        full.setShape(Shape({req, kv, Dim(1)})); // every selector picks exactly one input
        Stream flat = b.flatten(full, 0, 1, p + w + "_formatted");
        flat.setShape(perTile);
        return flat;
    };
    Stream k = cacheSide("k", in.kNew);
    Stream v = cacheSide("v", in.vNew);

    Stream qk = b.map({b.expand(in.q, k, 1, p + "expand_q"), k}, Function::matmul(true), o, p + "qk");
    Stream e = b.map({qk}, Function(Function::Kind::Exp), o, p + "exp");
    Stream pv = b.mapAccum(e, v, Function::matmul(), InitFn::zero(c.Q, c.hd), 1, o, p + "pv");
    Stream tileSum =
        b.accum(e, Function(Function::Kind::Add), InitFn::zero(c.Q, c.tn), 1, o, std::nullopt, p + "exp_sum");
    Stream rowSum = b.map({tileSum}, Function(Function::Kind::RowWiseSum), o, p + "row_sum");
    Stream out = b.map({pv, rowSum}, Function(Function::Kind::Div), {c.bw, true}, p + "div");
    Stream ack = b.randomOffChipStore(in.idx, out, io.out, eb, p + "store_out");
    if (io.outAcks)
        io.outAcks->push_back(ack);
    else
        b.sink(ack, p + "out_ack");
    return region;
}

// [1, n] metadata as the artifact's MetadataGen emits it.
Stream metadataRow(GraphBuilder& b, const std::vector<std::uint64_t>& v, const std::string& name) {
    return b.metadataGen(v, Shape({Dim(1), Dim(static_cast<std::int64_t>(v.size()))}), name);
}

std::vector<std::vector<int>> oneHot(const std::vector<int>& classes) {
    std::vector<std::vector<int>> out;
    for (int c : classes)
        out.push_back({c});
    return out;
}

} // namespace

void setAttentionDepths(Workload& w, const AttentionDepths& d) {
    for (const auto& n : d.writeBackBroadcasts)
        w.depthByProducer[n] = 4;
    for (int i = 0; i < w.graph.numOps(); ++i) {
        const Operator& op = w.graph.op(i);
        if (op.kind() != "Broadcast" || d.writeBackBroadcasts.count(op.name())) continue;
        if (d.metadataProducers.count(w.graph.op(op.inputs().at(0).op).name()))
            w.depthByProducer[op.name()] = 16;
    }
}

std::vector<std::vector<std::size_t>> splitRequests(const AttentionShape& c, const std::string& strategy,
                                                    std::int64_t regions) {
    std::vector<std::vector<std::size_t>> regionReqs;
    if (strategy == "coarse") { // blocks of 16 requests, block j to region j mod R
        const std::int64_t R = std::max<std::int64_t>(1, std::min(c.B / 16, regions));
        regionReqs.resize(R);
        for (std::int64_t i = 0; i < c.B; ++i)
            regionReqs[(i / 16) % R].push_back(i);
    } else {
        const std::int64_t R = std::min(regions, c.B);
        regionReqs.resize(R);
        for (std::int64_t i = 0; i < c.B; ++i)
            regionReqs[i % R].push_back(i);
    }
    return regionReqs;
}

AttentionDepths buildDecodeAttention(GraphBuilder& b, const AttentionShape& c, const std::string& strategy,
                                     const std::vector<std::vector<std::size_t>>& regionReqs,
                                     const AttentionPorts& io, Bindings& bind) {
    const int R = static_cast<int>(regionReqs.size());
    auto md = [&](const std::vector<std::size_t>& reqs, int which) {
        std::vector<std::uint64_t> v;
        for (auto i : reqs)
            v.push_back(static_cast<std::uint64_t>(which == 0 ? i : which == 1 ? c.tiles(i) : c.offset(i)));
        return v;
    };
    auto kvTilesOf = [&](const std::vector<std::size_t>& reqs) {
        std::int64_t t = 0;
        for (auto i : reqs)
            t += c.tiles(i);
        return t;
    };
    // The load of q (Q x hd tiles, which = 0) or of the new key / value rows (1 x hd, which = 1 / 2) for a
    // list of requests: [1, n, 1].
    auto loadRows = [&](const std::string& suffix, const std::vector<std::size_t>& reqs, int which) {
        const std::int64_t n = static_cast<std::int64_t>(reqs.size()), rows = which == 0 ? c.Q : 1;
        const char* load[] = {"load_q", "load_k_new", "load_v_new"};
        return b.linearOffChipLoad(io.rows(which, suffix, reqs), rows, c.hd, {1, 1}, {n, 1}, io.after,
                                   static_cast<int>(c.eb), 1, load[which] + suffix);
    };
    auto loadAll = [&](const std::string& suffix, const std::vector<std::size_t>& reqs) {
        return std::vector<Stream>{loadRows(suffix, reqs, 0), loadRows(suffix, reqs, 1),
                                   loadRows(suffix, reqs, 2)};
    };

    // Producers of per-region metadata, whose fan-out Broadcasts get the artifact's deeper metadata FIFOs.
    std::set<std::string> metadataProducers, writeBackBroadcasts;
    std::vector<std::size_t> all(c.B);
    for (std::int64_t i = 0; i < c.B; ++i)
        all[i] = i;

    if (strategy == "coarse") {
        // The regions' loads in the script's creation order (every region's q, then k, then v): the HBM node
        // serves its readers in operator order.
        std::vector<Stream> flat[3];
        const char* what[] = {"q", "k_new", "v_new"};
        for (int k = 0; k < 3; ++k)
            for (int r = 0; r < R; ++r)
                flat[k].push_back(b.flatten(loadRows(fmt::format("_r{}", r), regionReqs[r], k), 1, 2,
                                            fmt::format("r{}.{}", r, what[k])));
        for (int r = 0; r < R; ++r) {
            const std::string p = fmt::format("r{}.", r);
            const auto& reqs = regionReqs[r];
            RegionIn in;
            in.q = flat[0][r];
            in.kNew = flat[1][r];
            in.vNew = flat[2][r];
            in.idx = b.flatten(metadataRow(b, md(reqs, 0), p + "idx_gen"), 0, 1, p + "idx");
            in.tiles = b.flatten(metadataRow(b, md(reqs, 1), p + "seq_len_gen"), 0, 1, p + "seq_len");
            in.offset = b.flatten(metadataRow(b, md(reqs, 2), p + "offset_gen"), 0, 1, p + "offset");
            metadataProducers.insert({p + "idx", p + "seq_len", p + "offset"});
            regionPipeline(b, c, p, in, Dim(static_cast<std::int64_t>(reqs.size())), kvTilesOf(reqs), io,
                           bind, writeBackBroadcasts);
        }
    } else if (strategy == "interleaved") {
        auto rows = loadAll("", all);
        auto qs = b.parallelize(b.flatten(rows[0], 1, 2, "q"), R, "par_q");
        auto ks = b.parallelize(b.flatten(rows[1], 1, 2, "k_new"), R, "par_k_new");
        auto vs = b.parallelize(b.flatten(rows[2], 1, 2, "v_new"), R, "par_v_new");
        auto is = b.parallelize(b.flatten(metadataRow(b, md(all, 0), "idx_gen"), 0, 1, "idx"), R, "par_idx");
        auto ts = b.parallelize(b.flatten(metadataRow(b, md(all, 1), "seq_len_gen"), 0, 1, "seq_len"), R,
                                "par_seq_len");
        auto os = b.parallelize(b.flatten(metadataRow(b, md(all, 2), "offset_gen"), 0, 1, "offset"), R,
                                "par_offset");
        metadataProducers = {"par_idx", "par_seq_len", "par_offset"};
        for (int r = 0; r < R; ++r)
            regionPipeline(b, c, fmt::format("r{}.", r), {qs[r], ks[r], vs[r], is[r], ts[r], os[r]},
                           qs[r].shape().dims()[0], kvTilesOf(regionReqs[r]), io, bind, writeBackBroadcasts);
    } else {
        // Dynamic: every request after the first R goes to the region whose previous request has had all its
        // K tiles read first (EagerMerge of the regions' signals); the first R go round robin.
        std::vector<Stream> signals;
        std::vector<Dim> share;
        for (int r = 0; r < R; ++r) {
            const std::string sym = b.namePrefix() + fmt::format("num_req_region{}", r);
            share.push_back(Dim::dynamic(sym));
            bind[sym] = static_cast<std::int64_t>(regionReqs[r].size());
            signals.push_back(b.placeholder("scalar", Shape({share[r]}), nlohmann::json::object(),
                                            fmt::format("r{}.done_signal", r)));
        }
        auto [mergedData, finished] = b.eagerMerge(signals, 0, "region_done");
        b.sink(mergedData, "region_done_data");
        finished.setShape(Shape({Dim(c.B)}));
        std::vector<int> lastOrRest(c.B, 1), firstOrRest(c.B, 1), rr;
        for (int r = 0; r < R; ++r) {
            lastOrRest[c.B - R + r] = 0; // the last R signals find no request left to dispatch
            firstOrRest[r] = 0;
            rr.push_back(r);
        }
        Stream keep = b.flatten(
            b.selectGen(oneHot(lastOrRest), 2, Shape({Dim(1), Dim(c.B)}), "drop_last_signals"), 0, 1);
        auto kept = b.partition(finished, keep, 0, 2, "signal_filter");
        b.sink(kept[0], "unused_signals");
        kept[1].setShape(Shape({Dim(c.B - R)}));
        Stream first =
            b.flatten(b.selectGen(oneHot(rr), R, Shape({Dim(1), Dim(R)}), "initial_round_robin"), 0, 1);
        Stream order = b.selectGen(oneHot(firstOrRest), 2, Shape({Dim(1), Dim(c.B)}), "dispatch_order");
        Stream dispatchRaw = b.reassemble({first, kept[1]}, order, 0, "dispatch_merge");
        dispatchRaw.setShape(Shape({Dim(1), Dim(c.B), Dim(1)}));
        Stream dispatch = b.flatten(dispatchRaw, 0, 1, "dispatch");
        auto rows = loadAll("", all);
        auto qs = b.partition(rows[0], dispatch, 1, R, "dispatch_q");
        auto ks = b.partition(rows[1], dispatch, 1, R, "dispatch_k_new");
        auto vs = b.partition(rows[2], dispatch, 1, R, "dispatch_v_new");
        auto is = b.partition(metadataRow(b, md(all, 0), "idx"), dispatch, 0, R, "dispatch_idx");
        auto ts = b.partition(metadataRow(b, md(all, 1), "seq_len"), dispatch, 0, R, "dispatch_seq_len");
        auto os = b.partition(metadataRow(b, md(all, 2), "offset"), dispatch, 0, R, "dispatch_offset");
        metadataProducers = {"dispatch_idx", "dispatch_seq_len", "dispatch_offset"};
        for (int r = 0; r < R; ++r) {
            for (auto* s : {&qs[r], &ks[r], &vs[r]})
                s->setShape(Shape({share[r], Dim(1)}));
            for (auto* s : {&is[r], &ts[r], &os[r]})
                s->setShape(Shape({share[r]}));
            Region region =
                regionPipeline(b, c, fmt::format("r{}.", r), {qs[r], ks[r], vs[r], is[r], ts[r], os[r]},
                               share[r], kvTilesOf(regionReqs[r]), io, bind, writeBackBroadcasts);
            // "All K tiles of a request read": one signal per request, counted over its tiles.
            b.connect(signals[r],
                      b.accum(region.kTiles, Function(Function::Kind::SignalReqAllRead), InitFn::count(), 1,
                              {}, std::nullopt, fmt::format("r{}.all_read", r)));
        }
    }
    AttentionDepths d;
    for (const auto& n : metadataProducers)
        d.metadataProducers.insert(b.namePrefix() + n);
    d.writeBackBroadcasts = writeBackBroadcasts;
    return d;
}

} // namespace steprdu::tb
