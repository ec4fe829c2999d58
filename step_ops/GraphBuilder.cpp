#include "step_ops/GraphBuilder.h"

#include <fmt/format.h>

#include "util/Error.h"

namespace steprdu::step {

namespace {
nlohmann::json mapArgs(const Function& fn, const MapOptions& o) {
    nlohmann::json a{{"fn", fn.toJson()}};
    if (o.computeBw) a["compute_bw"] = o.computeBw;
    if (o.writeBackMu) a["write_back_mu"] = true;
    return a;
}
} // namespace

const StreamType& Stream::type() const {
    return b_->graph().type(ref_);
}
void Stream::setShape(const Shape& s) {
    b_->graph().op(ref_.op).overrideShape(ref_.out, s);
}

Graph GraphBuilder::finish() {
    g_.finalize();
    return std::move(g_);
}

void GraphBuilder::tensor(const std::string& name, std::int64_t rows, std::int64_t cols,
                          const std::string& init, std::uint64_t seed) {
    TensorSpec t;
    t.name = name;
    t.rows = rows;
    t.cols = cols;
    t.init = init;
    t.seed = seed;
    g_.addTensor(t);
}

void GraphBuilder::tensor(const std::string& name, std::int64_t rows, std::int64_t cols,
                          std::vector<float> values) {
    tensor(name, rows, cols);
    g_.setTensorValues(name, std::move(values));
}

std::vector<Stream> GraphBuilder::add(const std::string& kind, const nlohmann::json& args,
                                      const std::vector<Stream>& ins, const std::string& name) {
    std::vector<StreamRef> refs;
    for (auto& s : ins)
        refs.push_back(s.ref());
    int i = g_.add(kind, g_.uniqueName(prefix_ + (name.empty() ? kind : name)), args, refs);
    std::vector<Stream> outs;
    for (int o = 0; o < static_cast<int>(g_.op(i).outputs().size()); ++o)
        outs.emplace_back(this, StreamRef{i, o});
    return outs;
}

Stream GraphBuilder::linearOffChipLoad(const std::string& tensor, std::int64_t tileRows,
                                       std::int64_t tileCols, std::vector<std::int64_t> stride,
                                       std::vector<std::int64_t> outShape, std::optional<Stream> ref,
                                       int elemBytes, int parDispatch, const std::string& name) {
    nlohmann::json a{{"tensor", tensor}, {"tile_rows", tileRows}, {"tile_cols", tileCols},
                     {"stride", stride}, {"out_shape", outShape}, {"par_dispatch", parDispatch}};
    if (elemBytes) a["elem_bytes"] = elemBytes;
    std::vector<Stream> ins;
    if (ref) ins.push_back(*ref);
    return add("LinearOffChipLoad", a, ins, name)[0];
}

void GraphBuilder::linearOffChipStore(Stream in, const std::string& tensor, int parDispatch,
                                      const std::string& name) {
    add("LinearOffChipStore", {{"tensor", tensor}, {"par_dispatch", parDispatch}}, {in}, name);
}

Stream GraphBuilder::randomOffChipLoad(Stream raddr, const std::string& tensor, std::int64_t tileRows,
                                       std::int64_t tileCols, int elemBytes, std::int64_t baseTile,
                                       const std::string& name, int parDispatch) {
    nlohmann::json a{
        {"tensor", tensor}, {"tile_rows", tileRows}, {"tile_cols", tileCols}, {"base_tile", baseTile}};
    if (elemBytes) a["elem_bytes"] = elemBytes;
    if (parDispatch != 1) a["par_dispatch"] = parDispatch;
    return add("RandomOffChipLoad", a, {raddr}, name)[0];
}

Stream GraphBuilder::randomOffChipStore(Stream waddr, Stream wdata, const std::string& tensor, int elemBytes,
                                        const std::string& name) {
    nlohmann::json a{{"tensor", tensor}};
    if (elemBytes) a["elem_bytes"] = elemBytes;
    return add("RandomOffChipStore", a, {waddr, wdata}, name)[0];
}

Stream GraphBuilder::bufferize(Stream in, int rank, const std::string& name) {
    return add("Bufferize", {{"rank", rank}}, {in}, name)[0];
}

Stream GraphBuilder::streamify(Stream buffers, std::vector<std::int64_t> repeat, const std::string& name) {
    return add("Streamify", {{"repeat", repeat}}, {buffers}, name)[0];
}

Stream GraphBuilder::streamify(Stream buffers, Stream ref, const std::string& name) {
    return add("Streamify", nlohmann::json::object(), {buffers, ref}, name)[0];
}

std::vector<Stream> GraphBuilder::partition(Stream in, Stream sel, int rank, int numConsumers,
                                            const std::string& name) {
    return add("Partition", {{"rank", rank}, {"num_consumers", numConsumers}}, {in, sel}, name);
}

Stream GraphBuilder::reassemble(const std::vector<Stream>& ins, Stream sel, int rank,
                                const std::string& name) {
    auto all = ins;
    all.push_back(sel);
    return add("Reassemble", {{"rank", rank}}, all, name)[0];
}

std::pair<Stream, Stream> GraphBuilder::eagerMerge(const std::vector<Stream>& ins, int rank,
                                                   const std::string& name) {
    auto o = add("EagerMerge", {{"rank", rank}}, ins, name);
    return {o[0], o[1]};
}

std::vector<Stream> GraphBuilder::parallelize(Stream in, int numConsumers, const std::string& name) {
    return add("Parallelize", {{"num_consumers", numConsumers}}, {in}, name);
}

Stream GraphBuilder::map(const std::vector<Stream>& ins, const Function& fn, MapOptions o,
                         const std::string& name) {
    return add("Map", mapArgs(fn, o), ins, name)[0];
}

Stream GraphBuilder::accum(Stream in, const Function& fn, const InitFn& init, int rank, MapOptions o,
                           std::optional<TileType> outTile, const std::string& name) {
    auto a = mapArgs(fn, o);
    a["init"] = init.toJson();
    a["rank"] = rank;
    if (outTile)
        a["out_tile"] = {{"rows", outTile->rows.toJson()},
                         {"cols", outTile->cols.toJson()},
                         {"elem", elemName(outTile->elem)}};
    return add("Accum", a, {in}, name)[0];
}

Stream GraphBuilder::scan(Stream in, const Function& fn, const InitFn& init, int rank, MapOptions o,
                          const std::string& name) {
    auto a = mapArgs(fn, o);
    a["init"] = init.toJson();
    a["rank"] = rank;
    return add("Scan", a, {in}, name)[0];
}

Stream GraphBuilder::mapAccum(Stream x, Stream y, const Function& fn, const InitFn& init, int rank,
                              MapOptions o, const std::string& name) {
    auto a = mapArgs(fn, o);
    a["init"] = init.toJson();
    a["rank"] = rank;
    return add("MapAccum", a, {x, y}, name)[0];
}

Stream GraphBuilder::flatMap(Stream in, const nlohmann::json& fnArgs, const std::string& name) {
    return add("FlatMap", fnArgs, {in}, name)[0];
}

Stream GraphBuilder::retileStreamify(Stream in, bool splitRows, bool filterPadding, const std::string& name) {
    return flatMap(in,
                   {{"fn", splitRows ? "RetileRows" : "RetileCols"},
                    {"flatten", true},
                    {"filter_padding", filterPadding}},
                   name.empty() ? "RetileStreamify" : name);
}

Stream GraphBuilder::expertAddrGen(Stream sel, std::int64_t tilesPerExpert, std::int64_t baseTile,
                                   const std::string& name) {
    return flatMap(sel,
                   {{"fn", "ExpertAddr"}, {"num_tiles_per_expert", tilesPerExpert}, {"base_tile", baseTile}},
                   name.empty() ? "ExpertAddrGen" : name);
}

Stream GraphBuilder::cacheReadAddrGen(Stream idx, Stream tileCount, std::int64_t rowOffset,
                                      const std::string& name) {
    return add("FlatMap", {{"fn", "CacheReadAddr"}, {"row_offset", rowOffset}}, {idx, tileCount},
               name.empty() ? "CacheReadAddrGen" : name)[0];
}

Stream GraphBuilder::filterLastTile(Stream tileCount, const std::string& name) {
    return flatMap(tileCount, {{"fn", "FilterLastTile"}}, name.empty() ? "FilterLastTile" : name);
}

Stream GraphBuilder::flatten(Stream in, int minRank, int maxRank, const std::string& name) {
    return add("Flatten", {{"min_rank", minRank}, {"max_rank", maxRank}}, {in}, name)[0];
}

Stream GraphBuilder::reshape(Stream in, std::int64_t chunk, int rank, bool pad, const std::string& name) {
    nlohmann::json a{{"chunk", chunk}, {"rank", rank}};
    if (pad) a["pad"] = true;
    return add("Reshape", a, {in}, name)[0];
}

std::pair<Stream, Stream> GraphBuilder::reshapeWithPadding(Stream in, std::int64_t chunk,
                                                           const std::string& name) {
    auto o = add("Reshape", {{"chunk", chunk}, {"rank", 0}, {"pad", true}, {"pad_stream", true}}, {in}, name);
    return {o[0], o[1]};
}

Stream GraphBuilder::reshapeAddOuter(Stream in, std::int64_t chunk, bool pad, const std::string& name) {
    nlohmann::json a{{"chunk", chunk}, {"rank", 0}, {"outer", true}};
    if (pad) a["pad"] = true;
    return add("Reshape", a, {in}, name)[0];
}

Stream GraphBuilder::promote(Stream in, std::optional<int> rank, const std::string& name) {
    nlohmann::json a = nlohmann::json::object();
    if (rank) a["rank"] = *rank;
    return add("Promote", a, {in}, name)[0];
}

Stream GraphBuilder::expand(Stream in, Stream ref, int rank, const std::string& name) {
    return add("Expand", {{"rank", rank}}, {in, ref}, name)[0];
}

Stream GraphBuilder::repeatStatic(Stream in, std::int64_t count, const std::string& name) {
    return add("RepeatStatic", {{"count", count}}, {in}, name)[0];
}

Stream GraphBuilder::zip(Stream a, Stream b, const std::string& name) {
    return add("Zip", nlohmann::json::object(), {a, b}, name)[0];
}

Stream GraphBuilder::source(const std::string& type, const Shape& shape, const nlohmann::json& tokens,
                            const nlohmann::json& extra, const std::string& name) {
    nlohmann::json a = extra;
    a["type"] = type;
    a["shape"] = shape.toJson();
    a["tokens"] = tokens;
    return add("Source", a, {}, name)[0];
}

Stream GraphBuilder::selectGen(const std::vector<std::vector<int>>& selected, int width, const Shape& shape,
                               const std::string& name) {
    // The selectors form the stream's innermost dimension; a stop closes each outer element.
    nlohmann::json toks = nlohmann::json::array();
    for (auto& s : selected)
        toks.push_back(s);
    if (shape.rank() >= 1 && !selected.empty()) toks.push_back("S" + std::to_string(shape.rank()));
    return source("selector", shape, toks, {{"width", width}}, name);
}

Stream GraphBuilder::metadataGen(const std::vector<std::uint64_t>& values, const Shape& shape,
                                 const std::string& name) {
    nlohmann::json toks = nlohmann::json::array();
    for (auto v : values)
        toks.push_back(v);
    if (shape.rank() >= 1 && !values.empty()) toks.push_back("S" + std::to_string(shape.rank()));
    return source("scalar", shape, toks, nlohmann::json::object(), name);
}

Stream GraphBuilder::placeholder(const std::string& type, const Shape& shape, const nlohmann::json& extra,
                                 const std::string& name) {
    nlohmann::json a = extra;
    a["type"] = type;
    a["shape"] = shape.toJson();
    return add("Placeholder", a, {}, name)[0];
}

void GraphBuilder::connect(Stream ph, Stream real) {
    const Operator& p = g_.op(ph.ref().op);
    if (p.kind() != "Placeholder") throw BadInput(p.where() + ": connect() needs a Placeholder stream");
    const StreamType &want = ph.type(), &got = real.type();
    if (!want.dtype.equals(got.dtype) || want.shape.rank() != got.shape.rank())
        throw BadInput(fmt::format("{}: {}", p.where(), expectedFound(want.str(), got.str())));
    // The placeholder itself stays (stream handles keep their operator numbers) until finish() drops it.
    for (auto [op, port] : g_.consumers(ph.ref()))
        g_.op(op).rewireInput(port, real.ref());
}

void GraphBuilder::sink(Stream in, const std::string& name) {
    add("Sink", nlohmann::json::object(), {in}, name);
}

} // namespace steprdu::step
