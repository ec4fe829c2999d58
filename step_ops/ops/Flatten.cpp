// Flatten: merges the dimensions at ranks min..max into one; a ragged dimension among them makes the
// result a new ragged dimension (the paper's absorbing rule).
#include <fmt/format.h>

#include "step_ops/ops/OpKinds.h"

namespace steprdu::step::ops {
namespace {

class Flatten : public Operator {
  public:
    using Operator::Operator;
    std::string kind() const override { return "Flatten"; }

    void infer(const Graph&) override {
        expectInputs(1);
        min_ = static_cast<int>(intArg("min_rank"));
        max_ = static_cast<int>(intArg("max_rank"));
        const Shape& in = in_[0].shape;
        if (min_ < 0 || max_ <= min_ || max_ > in.rank())
            fail(
                fmt::format("ranks {}..{}: {}", min_, max_,
                            expectedFound(fmt::format("0 <= min < max <= {} (input {})", in.rank(), in.str()),
                                          fmt::format("min {} max {}", min_, max_))));
        Expr product(1);
        bool ragged = false;
        for (int r = min_; r <= max_; ++r) {
            product *= in.atRank(r).size;
            ragged = ragged || in.atRank(r).kind == DimKind::Ragged;
        }
        std::vector<Dim> dims;
        for (int r = in.rank(); r > max_; --r)
            dims.push_back(in.atRank(r));
        dims.push_back(ragged ? Dim::ragged(name() + "_len") : Dim::derived(product));
        for (int r = min_ - 1; r >= 0; --r)
            dims.push_back(in.atRank(r));
        out_.push_back({in_[0].dtype, Shape(dims)});
    }

    void run(OpIO& io) const override {
        for (;;) {
            Token t = io.peek(0);
            // Stops inside the merged range only end the innermost merged dim (none when it is rank 0).
            bool drop = t.isStop() && t.level > min_ && t.level <= max_ && min_ == 0;
            if (t.isStop() && t.level > min_) t.level = t.level <= max_ ? min_ : t.level - (max_ - min_);
            if (!drop) io.push(0, t);
            io.pop(0);
            if (t.isDone()) return;
        }
    }

  private:
    int min_ = 0, max_ = 1;
};

} // namespace

OperatorKind kindFlatten() {
    return makeKind<Flatten>("Flatten", {"min_rank", "max_rank"});
}

} // namespace steprdu::step::ops
