// Parallelize: static round-robin distribution of the outermost elements over n outputs (the static
// interleaved strategy of the dynamic-parallelization study).
#include <fmt/format.h>

#include "step_ops/ops/OpKinds.h"

namespace steprdu::step::ops {
namespace {

class Parallelize : public Operator {
  public:
    using Operator::Operator;
    std::string kind() const override { return "Parallelize"; }

    void infer(const Graph&) override {
        expectInputs(1);
        n_ = static_cast<int>(intArg("num_consumers"));
        if (n_ < 1) fail("argument 'num_consumers': " + expectedFound(">= 1", std::to_string(n_)));
        const Shape& in = in_[0].shape;
        const Dim& outer = in.dims()[0];
        for (int i = 0; i < n_; ++i) {
            Expr share = Expr::ceilDiv(outer.size - Expr(i), Expr(n_));
            Dim d = outer.kind == DimKind::Ragged ? Dim(share, DimKind::Ragged) : Dim::derived(share);
            std::vector<Dim> dims = in.dims();
            dims[0] = d;
            out_.push_back({in_[0].dtype, Shape(dims)});
        }
    }

    void run(OpIO& io) const override {
        int rank = in_[0].shape.rank();
        int next = 0;
        for (;;) {
            // Dequeued before it is forwarded (as the published simulator's Parallelize does): a full region
            // FIFO holds the element in hand, not in the input FIFO.
            Token t = io.pop(0);
            if (t.isDone()) break;
            io.push(next, t);
            if ((rank == 0 && t.isData()) || (t.isStop() && t.level >= rank)) next = (next + 1) % n_;
        }
        for (int i = 0; i < n_; ++i)
            io.push(i, Token::done());
    }

  private:
    int n_ = 1;
};

} // namespace

OperatorKind kindParallelize() {
    return makeKind<Parallelize>("Parallelize", {"num_consumers", "switch_cycles", "write_back_mu"});
}

} // namespace steprdu::step::ops
