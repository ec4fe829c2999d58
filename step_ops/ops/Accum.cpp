// Accum: reduces over the innermost `rank` dimensions with an update function and an initial value; the
// accumulator may be larger than the input tile (RetileRow packs rows into one tile).
#include "step_ops/ops/Reduction.h"

namespace steprdu::step::ops {
namespace {

class Accum : public Reduction {
  public:
    using Reduction::Reduction;
    std::string kind() const override { return "Accum"; }

    void infer(const Graph&) override {
        expectInputs(1);
        inferCommon();
        fn_ = Function::fromJson(args().at("fn"));
        fn_.outputType({accType_, in_[0].dtype}, where());
        out_.push_back({accType_, in_[0].shape.outer(rank_)});
    }

    void run(OpIO& io) const override {
        Element acc = init_.make(io.functional());
        for (;;) {
            Token t = io.pop(0);
            if (t.isDone()) {
                io.push(0, t);
                return;
            }
            if (t.isData()) {
                Work w{0, 0, 0, fn_.fixedCycles(), computeBw_};
                if (auto tile = std::get_if<Tile>(&t.value.v); tile && tile->readFromMu)
                    w.loadBytes = tile->bytes();
                w.flops = fn_.flops({acc, t.value});
                acc = fn_.apply({acc, t.value}, io.functional());
                io.work(w);
                continue;
            }
            if (t.level < rank_) continue;
            Work w{0, 0, 0, std::optional<std::int64_t>(0), computeBw_};
            Element out = finish(std::move(acc), w);
            if (w.storeBytes) io.work(w);
            io.push(0, Token::data(std::move(out)));
            if (t.level > rank_) io.push(0, Token::stop(t.level - rank_));
            acc = init_.make(io.functional());
        }
    }

    Expr flops() const override { return in_[0].shape.totalElements() * fn_.flops({accType_, in_[0].dtype}); }
    Expr onChipBytes() const override { return accType_.bytes(); }
    std::int64_t computeBw() const override { return fn_.fixedCycles() ? 0 : computeBw_; }

  private:
    Function fn_;
};

} // namespace

OperatorKind kindAccum() {
    return makeKind<Accum>("Accum", {"fn", "init", "rank", "out_tile", "compute_bw", "write_back_mu"});
}

} // namespace steprdu::step::ops
