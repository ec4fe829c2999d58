// Scan: like Accum, but emits the accumulator after every input element (same shape in and out).
#include "step_ops/ops/Reduction.h"

namespace steprdu::step::ops {
namespace {

class Scan : public UnaryReduction {
  public:
    using UnaryReduction::UnaryReduction;
    std::string kind() const override { return "Scan"; }

    void infer(const Graph&) override {
        inferUnary();
        out_.push_back({accType_, in_[0].shape});
    }

    void run(OpIO& io) const override {
        Element acc = init_.make(io.functional());
        for (;;) {
            Token t = io.peek(0);
            if (!t.isData()) {
                io.pop(0);
                io.push(0, t);
                if (t.isDone()) return;
                if (t.level >= rank_) acc = init_.make(io.functional());
                continue;
            }
            Work w = updateWork(fn_, {t.value}, {acc, t.value});
            acc = fn_.apply({acc, t.value}, io.functional());
            Element out = finish(acc, w);
            io.work(w);
            io.push(0, Token::data(std::move(out)));
            io.pop(0);
        }
    }
};

} // namespace

OperatorKind kindScan() {
    return makeKind<Scan>("Scan", {"fn", "init", "rank", "out_tile", "compute_bw", "write_back_mu"});
}

} // namespace steprdu::step::ops
