// MapAccum: Map and Accum fused, the way the STeP workloads express a tiled matmul reduced over K
// (the artifact's BinaryMapAccum): acc += fn(a, b) over the innermost `rank` dimensions.
#include <fmt/format.h>

#include "step_ops/ops/Reduction.h"

namespace steprdu::step::ops {
namespace {

class MapAccum : public Reduction {
  public:
    using Reduction::Reduction;
    std::string kind() const override { return "MapAccum"; }

    void infer(const Graph&) override {
        expectInputs(2);
        inferCommon();
        fn_ = Function::fromJson(args().at("fn"));
        if (fn_.kind() == Function::Kind::RetileRow || fn_.kind() == Function::Kind::RetileCol)
            fail(fmt::format("function {}: {}", fn_.name(),
                             expectedFound("a Map function", "an accumulator's (use Accum)")));
        if (!in_[0].shape.equals(in_[1].shape))
            fail(fmt::format("inputs must have identical shapes; {}",
                             expectedFound(in_[0].shape.str(), in_[1].shape.str())));
        DataType part = fn_.outputType({in_[0].dtype, in_[1].dtype}, where());
        if (!args().contains("out_tile") && init_.kind == InitFn::Kind::Empty) accType_ = part;
        checkUpdateFits(part, fmt::format("{}(input 0, input 1)", fn_.name()));
        out_.push_back({accType_, in_[0].shape.outer(rank_)});
    }

    void run(OpIO& io) const override {
        // Costs as Accum's: max(load, compute) per pair of elements, the write-back when the reduction
        // closes.
        Element acc = init_.make(io.functional());
        for (;;) {
            auto t = peekLockstep(io, *this, 2);
            if (t[0].isData()) {
                Work w = updateWork(fn_, {t[0].value, t[1].value}, {t[0].value, t[1].value});
                acc = accumulate(std::move(acc), fn_.apply({t[0].value, t[1].value}, io.functional()),
                                 io.functional());
                io.work(w);
                popAll(io, 2);
                continue;
            }
            popAll(io, 2);
            if (t[0].isDone()) {
                io.push(0, t[0]);
                return;
            }
            if (t[0].level < rank_) continue;
            Work w;
            Element out = finish(std::move(acc), w);
            if (w.storeElems) io.work(w);
            io.push(0, Token::data(std::move(out)));
            if (t[0].level > rank_) io.push(0, Token::stop(t[0].level - rank_));
            acc = init_.make(io.functional());
        }
    }

    Expr flops() const override {
        return in_[0].shape.totalElements() * fn_.flops({in_[0].dtype, in_[1].dtype});
    }
    Expr onChipBytes() const override { return accType_.bytes(); }
    Expr onChipBytesPaper() const override {
        if (fn_.kind() != Function::Kind::Matmul) return accType_.bytes();
        return Expr(16) * in_[0].dtype.tile.cols + in_[1].dtype.bytes() + accType_.bytes();
    }
    std::int64_t computeBw() const override { return computeBw_; }

  private:
    // An Empty accumulator (0 rows) takes the first partial result as it is; the valid-row count (padding)
    // follows the streamed operand, not the zero-initialised accumulator.
    static Element accumulate(Element acc, Element part, bool functional) {
        if (acc.tile().rows == 0) return part;
        Tile sum = Function(Function::Kind::Add).apply({acc, part}, functional).tile();
        sum.validRows = part.tile().validRows;
        return sum;
    }
    Function fn_;
};

} // namespace

OperatorKind kindMapAccum() {
    return makeKind<MapAccum>("MapAccum", {"fn", "init", "rank", "out_tile", "compute_bw", "write_back_mu"});
}

} // namespace steprdu::step::ops
