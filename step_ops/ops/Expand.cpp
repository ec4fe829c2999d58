// Expand: repeats each input element over the matching sub-tensor of a reference stream; the output has
// the reference's shape (the paper's Figure 5; the artifact's ExpandRef).
#include <fmt/format.h>

#include "step_ops/ops/OpKinds.h"
#include "util/Error.h"

namespace steprdu::step::ops {

void replayAlongRef(OpIO& io, const Operator& op, int scope, int inShift, int shift,
                    const std::function<void(const Element&)>& emit) {
    // The input element stays in its FIFO for its whole scope and leaves when the scope ends, while each
    // reference element leaves before its copy is emitted, as in the published simulator's ExpandRef (so a
    // long scope holds back whoever feeds the input).
    auto headData = [&]() {
        const Token& x = io.peek(0);
        if (!x.isData())
            throw BadInput(fmt::format("{}: input and reference disagree: expected an element, found {}",
                                       op.where(), x.str()));
        return x.value;
    };
    Element x;
    bool haveX = false, emitted = false;
    for (;;) {
        Token r = io.peek(1);
        if (r.isDone()) {
            if (emitted && shift > 0) io.push(0, Token::stop(shift));
            Token t = io.pop(0);
            if (!t.isDone())
                throw BadInput(
                    fmt::format("{}: reference ended before the input (input has {})", op.where(), t.str()));
            io.pop(1);
            io.push(0, Token::done());
            return;
        }
        if (r.isData()) {
            if (!haveX) x = headData();
            haveX = true;
            io.pop(1); // each reference element is dequeued before its copy is emitted
            if (emitted && shift > 0) io.push(0, Token::stop(shift));
            emit(x);
            emitted = true;
            if (scope == 0) { // each element is its own scope
                io.pop(0);
                haveX = false;
            }
            continue;
        }
        io.pop(1);
        io.push(0, Token::stop(r.level + shift));
        emitted = false;
        if (r.level < scope) continue;
        if (scope > 0) { // the scope ended: its element (consumed even by an empty scope) leaves its FIFO
            if (!haveX) headData();
            io.pop(0);
        }
        haveX = false;
        int lvl = r.level - inShift;
        if (lvl >= 1) {
            Token s = io.pop(0);
            if (!s.isStop() || s.level != lvl)
                throw BadInput(
                    fmt::format("{}: input and reference disagree: expected S{} on the input, found {}",
                                op.where(), lvl, s.str()));
        }
    }
}

namespace {

class Expand : public Operator {
  public:
    using Operator::Operator;
    std::string kind() const override { return "Expand"; }

    void infer(const Graph&) override {
        expectInputs(2);
        rank_ = static_cast<int>(intArg("rank"));
        const Shape &in = in_[0].shape, &ref = in_[1].shape;
        if (in.rank() != ref.rank())
            fail(fmt::format("input shape {} and reference shape {}: {}", in.str(), ref.str(),
                             expectedFound("equal ranks", fmt::format("{} vs {}", in.rank(), ref.rank()))));
        if (rank_ < 0 || rank_ > in.rank())
            fail("argument 'rank': " + expectedFound(fmt::format("0..{}", in.rank()), std::to_string(rank_)));
        for (int r = 0; r < in.numDims(); ++r) {
            const Expr& a = in.atRank(r).size;
            const Expr& b = ref.atRank(r).size;
            if (r < rank_ && a.constValue() != 1)
                fail(fmt::format("input dim at rank {} must be 1 to expand; {}", r,
                                 expectedFound("1", a.str())));
            if (r >= rank_ && a.isConst() && b.isConst() && !a.equals(b))
                fail(fmt::format("input shape {} vs reference shape {} at rank {}: {}", in.str(), ref.str(),
                                 r, expectedFound(b.str(), a.str())));
        }
        out_.push_back({in_[0].dtype, ref});
    }

    void run(OpIO& io) const override {
        replayAlongRef(io, *this, rank_, 0, 0, [&](const Element& x) { io.push(0, Token::data(x)); });
    }

    // The artifact counts the repeated tile (a quirk the figures include).
    Expr onChipBytes() const override { return in_[0].dtype.bytes(); }

  private:
    int rank_ = 0;
};

} // namespace

OperatorKind kindExpand() {
    return makeKind<Expand>("Expand", {"rank"});
}

} // namespace steprdu::step::ops
