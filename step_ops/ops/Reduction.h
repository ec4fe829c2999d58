#pragma once
// Shared by Accum, Scan and MapAccum: reductions over the innermost `rank` dimensions.
#include "step_ops/Function.h"
#include "step_ops/ops/OpKinds.h"

namespace steprdu::step::ops {

class Reduction : public Operator {
  public:
    using Operator::Operator;

  protected:
    // Reads rank, init, optional out_tile, compute_bw, write_back_mu; checks the rank against input 0.
    void inferCommon();
    // The accumulator type: out_tile when given (e.g. a dynamic RetileRow tile), else the init type.
    DataType accType() const { return accType_; }
    // The accumulated element as emitted (write-back marks it for a memory-unit read downstream and is
    // charged to the element that closes the reduction).
    Element finish(Element acc, Work& w) const;
    // One update: `streamed` are the stream elements consumed (their memory-unit reads), `fnArgs` the
    // function's arguments (accumulator included).
    Work updateWork(const Function& fn, const std::vector<Element>& streamed,
                    const std::vector<Element>& fnArgs) const;
    // Refuses an update whose result (`what`, of type `part`) is not a tile of the accumulator's extents:
    // folding it in would read or write past the accumulator's buffer.
    void checkUpdateFits(const DataType& part, const std::string& what) const;

    int rank_ = 1;
    InitFn init_;
    DataType accType_;
    std::int64_t computeBw_ = 0;
    bool writeBack_ = false;
};

// Accum and Scan: one input folded into the accumulator with an update function.
class UnaryReduction : public Reduction {
  public:
    using Reduction::Reduction;
    Expr flops() const override { return in_[0].shape.totalElements() * fn_.flops({accType_, in_[0].dtype}); }
    Expr onChipBytes() const override { return accType_.bytes(); }
    std::int64_t computeBw() const override { return fn_.fixedCycles() ? 0 : computeBw_; }

  protected:
    // One input, the common arguments, and `fn`, checked against the accumulator and input types.
    void inferUnary();

    Function fn_;
};

} // namespace steprdu::step::ops
