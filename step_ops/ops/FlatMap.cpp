// FlatMap: expands each element into a small stream and concatenates the results. The expansion
// functions are the ones the paper's workloads use: RetileRows/RetileCols (RetileStreamify), ExpertAddr
// (ExpertAddrGen), CacheReadAddr (CacheReadAddrGen over a Zip of index and tile count) and FilterLastTile.
#include <fmt/format.h>

#include "step_ops/ops/OpKinds.h"

namespace steprdu::step::ops {
namespace {

class FlatMap : public Operator {
  public:
    using Operator::Operator;
    std::string kind() const override { return "FlatMap"; }

    void infer(const Graph&) override {
        if (!args().contains("fn") || !args()["fn"].is_string())
            fail("argument 'fn': " +
                 expectedFound("a function name", args().value("fn", nlohmann::json()).dump()));
        fn_ = args()["fn"].get<std::string>();
        expectInputs(fn_ == "CacheReadAddr" && in_.size() == 2 ? 2 : 1);
        flatten_ = boolArg("flatten", false);
        filter_ = boolArg("filter_padding", false);
        const StreamType& in = in_[0];
        std::vector<Dim> pattern;
        DataType outType;
        if (fn_ == "RetileRows" || fn_ == "RetileCols") {
            expectTile(0);
            const TileType& t = in.dtype.tile;
            bool rows = fn_ == "RetileRows";
            outType = rows ? DataType::makeTile(1, t.cols, t.elem) : DataType::makeTile(t.rows, 1, t.elem);
            Expr n = rows ? t.rows : t.cols;
            pattern.push_back(filter_ || !n.isConst() ? Dim::ragged(name() + "_dyn") : Dim::derived(n));
        } else if (fn_ == "ExpertAddr") {
            if (in.dtype.kind != DataType::Kind::Selector)
                fail("input: " + expectedFound("a selector stream", in.dtype.str()));
            n_ = intArg("num_tiles_per_expert");
            base_ = intArg("base_tile", 0);
            if (n_ < 1 || base_ < 0)
                fail(fmt::format("arguments 'num_tiles_per_expert' and 'base_tile': {}",
                                 expectedFound(">= 1 and >= 0", fmt::format("{} and {}", n_, base_))));
            outType = DataType::address();
            pattern = {Dim(n_), Dim(1)};
        } else if (fn_ == "CacheReadAddr") {
            bool pair = in_.size() == 2
                            ? in_[1].dtype.equals(DataType::address()) && in.dtype.equals(DataType::address())
                            : in.dtype.kind == DataType::Kind::Tuple && in.dtype.items.size() == 2;
            if (!pair)
                fail("inputs: " +
                     expectedFound("(index, tile count) scalars, or a Zip of them", in.dtype.str()));
            if (in_.size() == 2 && (in.shape.rank() != 0 || in_[1].shape.rank() != 0))
                fail("the two-input form takes rank-0 streams; " +
                     expectedFound("rank 0", std::to_string(std::max(in.shape.rank(), in_[1].shape.rank()))) +
                     " (Zip higher-rank streams first)");
            n_ = intArg("row_offset");
            if (n_ < 0) fail("argument 'row_offset': " + expectedFound(">= 0", std::to_string(n_)));
            outType = DataType::address();
            pattern.push_back(Dim::ragged(name() + "_dyn"));
        } else if (fn_ == "FilterLastTile") {
            if (!in.dtype.equals(DataType::address()))
                fail("input (tile counts): " + expectedFound(DataType::address().str(), in.dtype.str()));
            outType = DataType::selector(2);
            pattern.push_back(Dim::ragged(name() + "_dyn"));
        } else {
            fail("argument 'fn': " +
                 expectedFound("RetileRows, RetileCols, ExpertAddr, CacheReadAddr or FilterLastTile",
                               "'" + fn_ + "'"));
        }
        if (flatten_) {
            if (pattern.size() != 1) fail("'flatten' needs a one-dimensional expansion");
            // The expansion merges into the innermost dimension (RetileStreamify's shape rule).
            std::vector<Dim> dims = in.shape.dims();
            Dim& last = dims.back();
            bool ragged = pattern[0].kind == DimKind::Ragged || last.kind == DimKind::Ragged;
            last = ragged ? Dim::ragged(name() + "_dyn") : Dim::derived(last.size * pattern[0].size);
            out_.push_back({outType, Shape(dims)});
        } else {
            out_.push_back({outType, in.shape.concat(Shape(pattern))});
        }
    }

    void run(OpIO& io) const override {
        int levels = flatten_ ? 0 : (fn_ == "ExpertAddr" ? 2 : 1);
        const int n = static_cast<int>(in_.size());
        for (;;) {
            Token t = io.peek(0);
            if (n == 2) { // two lockstep inputs (index, tile count) form one element
                const Token& u = io.peek(1);
                if (u.kind != t.kind || u.level != t.level)
                    fail("input streams disagree in structure: " + t.str() + " vs " + u.str());
                if (t.isData()) t.value = TupleValue{{t.value, u.value}};
            }
            if (t.isDone()) break;
            if (t.isStop()) {
                io.push(0, Token::stop(t.level + levels));
                popAll(io, n);
                continue;
            }
            std::vector<Element> items = expand(t.value, io.functional());
            std::vector<std::int64_t> dims{static_cast<std::int64_t>(items.size())};
            if (fn_ == "ExpertAddr") dims.push_back(1);
            std::size_t k = 0;
            emitNested(io, 0, dims, 0,
                       [&](const std::vector<std::int64_t>&) { io.push(0, Token::data(items[k++])); });
            popAll(io, n); // the element leaves its FIFO once expanded
            closeExpansion(io, 0, 0, levels, in_[0].shape.rank());
        }
        popAll(io, n);
        io.push(0, Token::done());
    }

  private:
    std::vector<Element> expand(const Element& x, bool functional) const {
        std::vector<Element> out;
        if (fn_ == "RetileRows" || fn_ == "RetileCols") {
            const Tile& t = x.tile();
            bool rows = fn_ == "RetileRows";
            std::int64_t n = rows ? (filter_ ? t.validRows : t.rows) : t.cols;
            for (std::int64_t i = 0; i < n; ++i) {
                Tile p = Tile::zeros(rows ? 1 : t.rows, rows ? t.cols : 1, functional && t.data, t.elem);
                p.readFromMu = t.readFromMu;
                p.validRows = rows ? 1 : t.validRows;
                if (p.data) {
                    auto& d = const_cast<std::vector<float>&>(*p.data);
                    if (rows)
                        for (std::int64_t c = 0; c < t.cols; ++c)
                            d[c] = t.at(i, c);
                    else
                        for (std::int64_t r = 0; r < t.rows; ++r)
                            d[r] = t.at(r, i);
                }
                out.push_back(p);
            }
        } else if (fn_ == "ExpertAddr") {
            for (int e : x.selector().selected)
                for (std::int64_t i = 0; i < n_; ++i)
                    out.push_back(Scalar{static_cast<std::uint64_t>(base_ + e * n_ + i)});
        } else if (fn_ == "CacheReadAddr") {
            std::uint64_t idx = x.tuple().items.at(0).scalar(), count = x.tuple().items.at(1).scalar();
            for (std::uint64_t j = 0; j < count; ++j)
                out.push_back(Scalar{idx * static_cast<std::uint64_t>(n_) + j});
        } else { // FilterLastTile
            std::uint64_t count = x.scalar();
            // One-hot per tile: target 0 for the request's last tile, 1 for the others (the artifact's
            // order).
            for (std::uint64_t j = 0; j < count; ++j)
                out.push_back(Selector{2, {j + 1 == count ? 0 : 1}});
        }
        return out;
    }

    std::string fn_;
    bool flatten_ = false, filter_ = false;
    std::int64_t n_ = 0, base_ = 0;
};

} // namespace

OperatorKind kindFlatMap() {
    return makeKind<FlatMap>(
        "FlatMap", {"fn", "flatten", "filter_padding", "num_tiles_per_expert", "base_tile", "row_offset"});
}

} // namespace steprdu::step::ops
