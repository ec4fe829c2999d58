// Promote: inserts a size-1 dimension at `rank` (default: a new outermost dimension, which is 0 for an
// empty stream, so empty streams stay empty).
#include <fmt/format.h>

#include "step_ops/ops/OpKinds.h"

namespace steprdu::step::ops {
namespace {

class Promote : public Operator {
  public:
    using Operator::Operator;
    std::string kind() const override { return "Promote"; }

    void infer(const Graph&) override {
        expectInputs(1);
        const Shape& in = in_[0].shape;
        rank_ = static_cast<int>(intArg("rank", in.rank() + 1));
        if (rank_ < 0 || rank_ > in.rank() + 1)
            fail("argument 'rank': " +
                 expectedFound(fmt::format("0..{}", in.rank() + 1), std::to_string(rank_)));
        std::vector<Dim> dims = in.dims();
        if (rank_ == in.rank() + 1) {
            const Dim& outer = in.dims()[0];
            Dim one = outer.isStatic() ? Dim(*outer.size.constValue() > 0 ? 1 : 0)
                                       : Dim::derived(Expr::step(outer.size));
            dims.insert(dims.begin(), one);
        } else {
            dims.insert(dims.end() - rank_, Dim(1));
        }
        out_.push_back({in_[0].dtype, Shape(dims)});
    }

    void run(OpIO& io) const override {
        int inRank = in_[0].shape.rank();
        if (rank_ == inRank + 1) {
            // The stream's final stop (or, for rank 0, its last element) also closes the new dimension.
            for (;;) {
                Token t = io.peek(0);
                if (t.isDone()) {
                    io.push(0, t);
                    io.pop(0);
                    return;
                }
                bool last = io.peek(0, 1).isDone();
                if (last && t.isStop()) t.level = inRank + 1;
                io.push(0, t);
                if (last && t.isData()) io.push(0, Token::stop(inRank + 1));
                io.pop(0);
            }
        }
        for (;;) {
            Token t = io.peek(0);
            if (t.isStop() && t.level >= rank_) t.level += 1;
            bool data = t.isData(), done = t.isDone();
            io.push(0, std::move(t));
            io.pop(0);
            if (done) return;
            if (data && rank_ == 0) closeExpansion(io, 0, 0, 1, in_[0].shape.rank());
        }
    }

  private:
    int rank_ = 1;
};

} // namespace

OperatorKind kindPromote() {
    return makeKind<Promote>("Promote", {"rank"});
}

} // namespace steprdu::step::ops
