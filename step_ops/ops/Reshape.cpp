// Reshape: splits the dimension at `rank` into chunks of `chunk` elements. The innermost dimension may be
// ragged and is then padded with `pad` tiles; an optional second output marks padded elements. With `outer`
// (the scripts' add_outer_dim, rank-0 inputs only) it also adds an outermost dimension of size 1 (0 for an
// empty stream).
#include <fmt/format.h>

#include "step_ops/ops/OpKinds.h"

namespace steprdu::step::ops {
namespace {

class Reshape : public Operator {
  public:
    using Operator::Operator;
    std::string kind() const override { return "Reshape"; }

    void infer(const Graph&) override {
        expectInputs(1);
        chunk_ = intArg("chunk");
        rank_ = static_cast<int>(intArg("rank"));
        pad_ = boolArg("pad", false);
        padStream_ = boolArg("pad_stream", false);
        outer_ = boolArg("outer", false);
        const Shape& in = in_[0].shape;
        if (outer_ && in.rank() != 0) fail("argument 'outer' needs a rank-0 input; found " + in.str());
        if (chunk_ < 1) fail("argument 'chunk': " + expectedFound(">= 1", std::to_string(chunk_)));
        if (rank_ < 0 || rank_ > in.rank())
            fail("argument 'rank': " + expectedFound(fmt::format("0..{}", in.rank()), std::to_string(rank_)));
        const Dim& d = in.atRank(rank_);
        bool divisible = d.size.isConst() && *d.size.constValue() % chunk_ == 0;
        if (rank_ > 0 && !divisible)
            fail(fmt::format("dimension at rank {} of {} must be a static multiple of {}; found {}", rank_,
                             in.str(), chunk_, d.str()));
        if (rank_ == 0 && !divisible && !pad_ && chunk_ != 1)
            fail(fmt::format("innermost dimension {} is not a static multiple of {}; give 'pad' to pad it",
                             d.str(), chunk_));
        if (pad_ && !in_[0].dtype.isFloatTile())
            fail("'pad' needs a tile stream; " + expectedFound("tiles of floats", in_[0].dtype.str()));
        Expr n = Expr::ceilDiv(d.size, Expr(chunk_));
        std::vector<Dim> dims;
        if (outer_)
            dims.push_back(d.isStatic() ? Dim(*d.size.constValue() > 0 ? 1 : 0)
                                        : Dim::derived(Expr::step(d.size)));
        for (int r = in.rank(); r > rank_; --r)
            dims.push_back(in.atRank(r));
        dims.push_back(d.kind == DimKind::Ragged ? Dim(n, DimKind::Ragged) : Dim::derived(n));
        dims.push_back(Dim(chunk_));
        for (int r = rank_ - 1; r >= 0; --r)
            dims.push_back(in.atRank(r));
        out_.push_back({in_[0].dtype, Shape(dims)});
        if (padStream_) out_.push_back({DataType::makeTile(1, 1, ElemType::Bool), Shape(dims)});
    }

    void run(OpIO& io) const override {
        auto emit = [&](Token t, bool padded) {
            if (padStream_) io.push(1, t.isData() ? Token::data(Scalar{padded ? 1u : 0u}) : t);
            io.push(0, std::move(t));
        };
        auto closeChunk = [&]() {           // merge the chunk boundary with a stop that follows it
            if (in_[0].shape.rank() == 0) { // no stops in the input: the chunk closes at once
                emit(Token::stop(1), false);
                return;
            }
            const Token& next = io.peek(0);
            if (next.isStop()) {
                int k = next.level;
                io.pop(0);
                emit(Token::stop(k + 1), false);
            } else {
                emit(Token::stop(1), false);
            }
        };
        std::int64_t count = 0;
        Tile padTile;
        for (;;) {
            Token t = io.peek(0);
            if (outer_ && t.isData() && count + 1 == chunk_) {
                // The chunk closes the new outer dimension if nothing follows: the published operator looks
                // at the next element (its clock moving to that element's arrival) or at the stream's end
                // (its clock staying) before it emits this one.
                bool last = io.peek(0, 1).isDone();
                io.pop(0);
                if (!last) io.peek(0);
                emit(std::move(t), false);
                count = 0;
                emit(Token::stop(last ? 2 : 1), false);
                continue;
            }
            io.pop(0); // shape operators take no time: dequeuing before or after emitting is the same
            if (rank_ > 0) {
                if (t.isStop() && t.level == rank_)
                    t.level = (++count % chunk_ == 0) ? rank_ + 1 : rank_;
                else if (t.isStop() && t.level > rank_) {
                    count = 0;
                    t.level += 1;
                }
                emit(t, false);
                if (t.isDone()) return;
                continue;
            }
            if (t.isData()) {
                if (pad_) padTile = paddingFor(t.value.tile(), io.functional());
                emit(std::move(t), false);
                if (++count == chunk_) {
                    count = 0;
                    closeChunk();
                }
                continue;
            }
            // End of a vector (stop) or of the stream (Done): pad the open chunk and close it.
            if (count > 0) {
                for (; count < chunk_; ++count)
                    emit(Token::data(padTile), true);
                count = 0;
                emit(Token::stop(t.isStop() ? t.level + 1 : outer_ ? 2 : 1), false);
            } else if (t.isStop()) {
                emit(Token::stop(t.level + 1), false);
            }
            if (t.isDone()) {
                emit(t, false);
                return;
            }
        }
    }

  private:
    static Tile paddingFor(const Tile& like, bool functional) {
        Tile p = Tile::zeros(like.rows, like.cols, functional && like.data, like.elem);
        p.validRows = 0;
        return p;
    }
    std::int64_t chunk_ = 1;
    int rank_ = 0;
    bool pad_ = false, padStream_ = false, outer_ = false;
};

} // namespace

OperatorKind kindReshape() {
    return makeKind<Reshape>("Reshape", {"chunk", "rank", "pad", "pad_stream", "outer", "write_back_mu"});
}

} // namespace steprdu::step::ops
