// Accum: reduces over the innermost `rank` dimensions with an update function and an initial value; the
// accumulator may be larger than the input tile (RetileRow packs rows into one tile).
#include "step_ops/ops/Reduction.h"

namespace steprdu::step::ops {
namespace {

class Accum : public UnaryReduction {
  public:
    using UnaryReduction::UnaryReduction;
    std::string kind() const override { return "Accum"; }

    void infer(const Graph&) override {
        inferUnary();
        out_.push_back({accType_, in_[0].shape.outer(rank_)});
    }

    void run(OpIO& io) const override {
        // Each element costs max(load, compute); the reduction closes on the stop that ends it (the published
        // simulator attaches that stop to the last element), which adds the write-back of the result.
        Element acc = init_.make(io.functional());
        for (;;) {
            Token t = io.peek(0);
            if (t.isData()) {
                Work w = updateWork(fn_, {t.value}, {acc, t.value});
                acc = fn_.apply({acc, t.value}, io.functional());
                io.work(w);
                io.pop(0);
                continue;
            }
            io.pop(0);
            if (t.isDone()) {
                io.push(0, t);
                return;
            }
            if (t.level < rank_) continue;
            Work w;
            Element out = finish(std::move(acc), w);
            if (w.storeElems) io.work(w);
            io.push(0, Token::data(std::move(out)));
            if (t.level > rank_) io.push(0, Token::stop(t.level - rank_));
            acc = init_.make(io.functional());
        }
    }
};

} // namespace

OperatorKind kindAccum() {
    return makeKind<Accum>("Accum", {"fn", "init", "rank", "out_tile", "compute_bw", "write_back_mu"});
}

} // namespace steprdu::step::ops
