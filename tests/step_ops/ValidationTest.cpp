// Graphs the builder must refuse, each with the message that names the operator, what it expected and what it
// found: the validation gaps fuzz_program found (or that the reported MapAccum/Matmul read past a buffer
// showed), each of which let an accepted graph fail or read out of bounds at run time.
#include <functional>

#include <gtest/gtest.h>

#include "StreamHelpers.h"
#include "util/Error.h"

using namespace steprdu;
using namespace steprdu::step;
using steprdu::test::tileSource;

namespace {

// The BadInput message `build` ends with (a test failure if it is accepted).
std::string refusal(const std::function<void(GraphBuilder&)>& build) {
    GraphBuilder b;
    try {
        build(b);
        b.finish();
    } catch (const BadInput& e) {
        return e.what();
    }
    ADD_FAILURE() << "the graph was accepted";
    return "";
}

// A's 32x64 tensor as 32x32 tiles and B's 64x16 as 32x16 tiles, both streams [1, 2]: the issue's program.
std::pair<Stream, Stream> issueOperands(GraphBuilder& b) {
    b.tensor("a", 32, 64);
    b.tensor("b", 64, 16);
    Stream a = b.linearOffChipLoad("a", 32, 32, {1}, {2});
    Stream w = b.linearOffChipLoad("b", 32, 16, {1}, {2});
    return {a, w};
}

// A stream [1, n] of r x c tiles.
Stream tiles(GraphBuilder& b, std::int64_t r, std::int64_t c, std::int64_t n = 2) {
    const std::string t = "t" + std::to_string(b.graph().tensors().size());
    b.tensor(t, r, c * n);
    return b.linearOffChipLoad(t, r, c, {1}, {n});
}

// A stream [1, n] of addresses (scalars at run time).
Stream addresses(GraphBuilder& b, std::int64_t n = 2) {
    std::vector<std::uint64_t> v(static_cast<std::size_t>(n), 0);
    return b.metadataGen(v, Shape({Dim(1), Dim(n)}), "addr");
}

void store(GraphBuilder& b, Stream s, std::int64_t r, std::int64_t c) {
    b.tensor("out", r, c);
    b.linearOffChipStore(s, "out");
}

#define EXPECT_REFUSED(msg, ...)                                                                             \
    do {                                                                                                     \
        const std::string m = msg;                                                                           \
        for (const char* part : {__VA_ARGS__})                                                               \
            EXPECT_NE(m.find(part), std::string::npos) << "'" << part << "' not in: " << m;                  \
    } while (0)

} // namespace

TEST(StepValidation, MapAccumMatmulWhoseInitDiffersFromTheProductTile) {
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       auto [a, w] = issueOperands(b);
                       Stream c = b.mapAccum(a, w, Function::matmul(), InitFn::zero(32, 32), 1, {}, "c");
                       store(b, c, 32, 32);
                   }),
                   "MapAccum 'c'", "32x16", "32x32", "init");
}

TEST(StepValidation, AccumAndScanWhoseInitDiffersFromTheUpdate) {
    // A 1x32 init broadcasts against 32x32 tiles, but the sums are 32x32: they do not fit it.
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       Stream s = b.accum(tiles(b, 32, 32), Function(Function::Kind::Add),
                                          InitFn::zero(1, 32), 1, {}, std::nullopt, "sum");
                       store(b, s, 32, 32);
                   }),
                   "Accum 'sum'", "expected 32x32, found 1x32");
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       Stream s = b.scan(tiles(b, 4, 8), Function(Function::Kind::Add), InitFn::zero(4, 1), 1,
                                         {}, "prefix");
                       store(b, s, 4, 16);
                   }),
                   "Scan 'prefix'", "expected 4x8, found 4x1");
}

TEST(StepValidation, AddAgainstAnAccumulatorOfNoRows) {
    // A Zero init of no rows: a 1-row tile cannot broadcast against it (the sum would read row 0 of it).
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       Stream s = b.accum(tiles(b, 1, 8), Function(Function::Kind::Add), InitFn::zero(0, 8),
                                          1, {}, std::nullopt, "sum");
                       store(b, s, 1, 8);
                   }),
                   "Accum 'sum'", "broadcast-compatible tile rows", "0 vs 1");
}

TEST(StepValidation, TileFunctionsRefuseScalarStreamsAndScalarFunctionsRefuseTiles) {
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       b.sink(b.map({addresses(b)}, Function(Function::Kind::Exp), {}, "exp"));
                   }),
                   "Map 'exp'", "function Exp input 0", "expected a tile, found Tile<u64, 1x1>");
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       Stream t = tiles(b, 2, 4);
                       b.sink(b.map({t, t}, Function::cacheWriteAddrGen(4), {}, "addr"));
                   }),
                   "Map 'addr'", "function CacheWriteAddrGen input 0", "expected a scalar");
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       Stream t = tiles(b, 2, 4);
                       b.sink(b.map({t, t}, Function(Function::Kind::SetOffset), {}, "offset"));
                   }),
                   "Map 'offset'", "function SetOffset input 1", "expected a scalar");
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       b.sink(b.accum(addresses(b), Function(Function::Kind::Add), InitFn::count(), 1, {},
                                      std::nullopt, "count"));
                   }),
                   "Accum 'count'", "function Add input 0", "expected a tile");
}

TEST(StepValidation, OperatorsThatReadTileDataRefuseScalarStreams) {
    EXPECT_REFUSED(refusal([](GraphBuilder& b) { store(b, addresses(b), 1, 2); }), "LinearOffChipStore",
                   "expected a tile stream");
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       b.sink(b.flatMap(addresses(b), {{"fn", "RetileRows"}}, "rows"));
                   }),
                   "FlatMap 'rows'", "expected a tile stream");
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       b.sink(b.flatMap(tiles(b, 2, 4), {{"fn", "FilterLastTile"}}, "last"));
                   }),
                   "FlatMap 'last'", "tile counts", "expected Tile<u64, 1x1>, found Tile<f32, 2x4>");
}

TEST(StepValidation, GrowingFunctionsOnlyOnEmptyAccumulators) {
    // Found by fuzz_program: a Map with RetileRow declared 2x4 tiles and made 4x4 ones.
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       Stream t = tiles(b, 2, 4);
                       b.sink(b.map({t, t}, Function(Function::Kind::RetileRow), {}, "rows"));
                   }),
                   "Map 'rows'", "function RetileRow", "an accumulator's");
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       b.sink(b.scan(tiles(b, 2, 4), Function(Function::Kind::RetileRow), InitFn::zero(2, 4),
                                     1, {}, "grow"));
                   }),
                   "Scan 'grow'", "grows its accumulator", "expected Empty, found Tile<f32, 2x4>");
}

TEST(StepValidation, RowFunctionsCheckTheOtherOperandsExtents) {
    EXPECT_REFUSED(
        refusal([](GraphBuilder& b) {
            Stream t = tiles(b, 4, 8);
            b.sink(b.map({t, tiles(b, 2, 8)}, Function(Function::Kind::RowWiseAppend), {}, "append"));
        }),
        "Map 'append'", "RowWiseAppend needs a one-row input 1", "expected 1, found 2");
    EXPECT_REFUSED(
        refusal([](GraphBuilder& b) {
            Stream t = tiles(b, 1, 8);
            b.sink(b.map({t, tiles(b, 1, 4)}, Function(Function::Kind::RowWiseAppend), {}, "append"));
        }),
        "Map 'append'", "needs equal column counts", "expected 8, found 4");
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       b.sink(b.accum(tiles(b, 4, 2), Function(Function::Kind::RetileCol), InitFn::empty(2),
                                      1, {}, TileType{2, 8, ElemType::F32}, "cols"));
                   }),
                   "Accum 'cols'", "RetileCol needs equal row counts", "expected 2, found 4");
}

TEST(StepValidation, AccumulatorElementTypes) {
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       b.sink(b.accum(tiles(b, 1, 1), Function(Function::Kind::Add),
                                      InitFn::zero(1, 1, ElemType::U64), 1, {}, std::nullopt, "sum"));
                   }),
                   "init function Zero: elem", "expected f32, bf16 or f16, found u64");
    // A counting accumulator declared as a float tile: its element would be a scalar typed as a tile.
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       b.sink(b.accum(addresses(b), Function(Function::Kind::SignalReqAllRead),
                                      InitFn::count(), 1, {}, TileType{1, 1, ElemType::F32}, "count"));
                   }),
                   "Accum 'count'", "out_tile", "both scalars or both tiles of floats");
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       b.sink(b.accum(tiles(b, 2, 2), Function(Function::Kind::Add), InitFn::zero(2, 2), 1,
                                      {}, TileType{-2, 2, ElemType::F32}, "sum"));
                   }),
                   "Accum 'sum'", "out_tile", "non-negative rows and cols");
    // Found by fuzz_program: the accumulator is made by the init (1x16), not by out_tile (1x8), so the sum
    // of two 1x8 tiles met a 1x16 accumulator at run time.
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       b.sink(b.accum(tiles(b, 1, 8), Function(Function::Kind::Add), InitFn::zero(1, 16), 1,
                                      {}, TileType{1, 8, ElemType::F32}, "sum"));
                   }),
                   "Accum 'sum'", "out_tile", "expected out_tile 1x16, found 1x8");
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       b.sink(b.accum(tiles(b, 1, 8), Function(Function::Kind::Add), InitFn::empty(8), 1, {},
                                      TileType{1, 8, ElemType::F32}, "sum"));
                   }),
                   "Accum 'sum'", "init Empty (no rows) with function Add",
                   "expected RetileRow or RetileCol");
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       b.sink(b.map({tiles(b, 2, 2)}, Function(Function::Kind::Exp), {-1, false}, "exp"));
                   }),
                   "Map 'exp'", "compute_bw", "expected >= 0, found -1");
}

TEST(StepValidation, SourceTokensMustMatchTheDeclaredStream) {
    const auto src = [](const nlohmann::json& tokens, const Shape& shape, int tr = 1, int tc = 2) {
        return [=](GraphBuilder& b) {
            b.sink(b.source("tile", shape, tokens, {{"tile_rows", tr}, {"tile_cols", tc}}, "src"));
        };
    };
    const nlohmann::json ok = {{"tile", {{1, 2}}}};
    // Rows of different lengths used to be copied past the tile's buffer.
    EXPECT_REFUSED(refusal(src({{{"tile", {{1, 2}, {3, 4, 5}}}}}, Shape({Dim(1)}), 2, 2)), "Source 'src'",
                   "expected 2 rows of 2 numbers, found row 1 of 3 numbers");
    EXPECT_REFUSED(refusal(src({{{"tile", {{1, 2, 3}}}}}, Shape({Dim(1)}))), "Source 'src'",
                   "expected 1 rows of 2 numbers");
    EXPECT_REFUSED(refusal(src({ok, ok, ok}, Shape({Dim(1), Dim(2)}))), "Source 'src'",
                   "expected 2 elements, found 3");
    EXPECT_REFUSED(refusal(src({ok, ok, "S2"}, Shape({Dim(1), Dim(2)}))), "Source 'src'",
                   "expected stop levels 1..1, found S2");
    EXPECT_REFUSED(refusal(src({ok, "S1", ok, "S1"}, Shape({Dim(1), Dim(2)}))), "Source 'src'",
                   "do not follow shape [1, 2]; expected D D S1, found D S1 D S1");
    EXPECT_REFUSED(refusal(src({ok, ok}, Shape({Dim::dynamic("n"), Dim(2)}))), "Source 'src'",
                   "must end with S1");
    EXPECT_REFUSED(refusal(src({}, Shape(std::vector<Dim>{}))), "Source 'src'",
                   "non-empty list of dimensions");
    EXPECT_REFUSED(refusal(src({}, Shape({Dim(-1)}))), "Source 'src'",
                   "dimension size expected >= 0, found -1");
    EXPECT_REFUSED(refusal([](GraphBuilder& b) { b.sink(b.selectGen({}, 0, Shape({Dim(0)}), "sel")); }),
                   "Source 'sel'", "argument 'width'", "expected >= 1, found 0");
}

TEST(StepValidation, OffChipAccessesStayInsideTheirTensors) {
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       b.tensor("t", 4, 4);
                       store(b, b.linearOffChipLoad("t", 2, 2, {-1}, {2}, std::nullopt, 0, 1, "load"), 4, 4);
                   }),
                   "LinearOffChipLoad 'load'", "reaches tile -1", "tiles 0..3");
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       b.tensor("t", 4, 4);
                       store(b, b.linearOffChipLoad("t", 2, 2, {1}, {2}, std::nullopt, 0, 0, "load"), 4, 4);
                   }),
                   "LinearOffChipLoad 'load'", "par_dispatch", "expected 1..1024, found 0");
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       b.tensor("t", 4, 4);
                       store(b, b.linearOffChipLoad("t", 2, 2, {1}, {2}, std::nullopt, -4, 1, "load"), 4, 4);
                   }),
                   "LinearOffChipLoad 'load'", "elem_bytes", "expected 1..8, found -4");
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       b.tensor("t", 4, 4);
                       store(b, b.randomOffChipLoad(addresses(b), "t", 2, 2, 0, 4, "gather"), 4, 4);
                   }),
                   "RandomOffChipLoad 'gather'", "base_tile", "expected 0..3");
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       b.tensor("t", 4, 6);
                       b.sink(b.randomOffChipStore(addresses(b), tiles(b, 4, 4), "t", 0, "scatter"));
                   }),
                   "RandomOffChipStore 'scatter'", "4x4 does not evenly divide tensor 't' of 4x6");
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       TensorSpec t;
                       t.name = "ints";
                       t.rows = t.cols = 2;
                       t.elem = ElemType::U64;
                       b.graph().addTensor(t);
                   }),
                   "tensor 'ints'", "expected f32, bf16 or f16, found u64");
}

TEST(StepValidation, AddressesOutsideTheTensorAreRefusedWhenTheyArrive) {
    // Addresses are data: the builder cannot know them, the run refuses them before reading.
    GraphBuilder b;
    b.tensor("t", 2, 2);
    Stream a = b.metadataGen({0, 1}, Shape({Dim(2)}), "addr");
    store(b, b.randomOffChipLoad(a, "t", 2, 2, 0, 0, "gather"), 2, 4);
    Graph g = b.finish();
    try {
        Interpreter(true).run(g);
        ADD_FAILURE() << "address 1 of a one-tile tensor was read";
    } catch (const BadInput& e) {
        EXPECT_REFUSED(std::string(e.what()), "RandomOffChipLoad 'gather'", "read address 1",
                       "outside tensor 't' of 1 tiles");
    }
}

TEST(StepValidation, CountsAndRanksOfRepeatsAndRoutes) {
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       Stream buf = b.bufferize(tiles(b, 2, 2), 1, "buf");
                       store(b, b.streamify(buf, std::vector<std::int64_t>{0}, "replay"), 2, 4);
                   }),
                   "Streamify 'replay'", "argument 'repeat'", "counts >= 1");
    EXPECT_REFUSED(refusal([](GraphBuilder& b) {
                       Stream sel = b.selectGen({{0}}, 1, Shape({Dim(1)}), "sel");
                       b.sink(b.flatMap(sel, {{"fn", "ExpertAddr"}, {"num_tiles_per_expert", 0}}, "experts"));
                   }),
                   "FlatMap 'experts'", "num_tiles_per_expert", "found 0 and 0");
}
