// Map: applies a function to the elements of one or more same-shaped streams (BinaryMap takes two
// streams directly, as the STeP artifact does, instead of a Zip).
#include <fmt/format.h>

#include "step_ops/Function.h"
#include "step_ops/ops/OpKinds.h"

namespace steprdu::step::ops {
namespace {

class Map : public Operator {
  public:
    using Operator::Operator;
    std::string kind() const override { return "Map"; }

    void infer(const Graph&) override {
        fn_ = Function::fromJson(args().at("fn"));
        // RetileRow and RetileCol concatenate onto an accumulator: applied once, the tile they make is larger
        // than the type they declare.
        if (fn_.kind() == Function::Kind::RetileRow || fn_.kind() == Function::Kind::RetileCol)
            fail(fmt::format("function {}: {}", fn_.name(),
                             expectedFound("a Map function", "an accumulator's (use Accum)")));
        expectInputs(fn_.arity());
        computeBw_ = intArg("compute_bw", 0);
        if (computeBw_ < 0)
            fail("argument 'compute_bw': " + expectedFound(">= 0", std::to_string(computeBw_)));
        writeBack_ = boolArg("write_back_mu", false);
        std::vector<DataType> types;
        for (std::size_t i = 0; i < in_.size(); ++i) {
            types.push_back(in_[i].dtype);
            if (i > 0) checkSameShape(in_[0].shape, in_[i].shape, static_cast<int>(i));
        }
        out_.push_back({fn_.outputType(types, where()), in_[0].shape});
    }

    void run(OpIO& io) const override {
        int n = static_cast<int>(in_.size());
        for (;;) {
            auto t = peekLockstep(io, *this, n);
            if (!t[0].isData()) {
                popAll(io, n);
                io.push(0, t[0]);
                if (t[0].isDone()) return;
                continue;
            }
            std::vector<Element> args;
            Work w;
            w.fixedCycles = fn_.fixedCycles();
            w.computeBw = computeBw_;
            for (auto& x : t) {
                if (auto tile = std::get_if<Tile>(&x.value.v); tile && tile->readFromMu) w.addLoad(*tile);
                args.push_back(std::move(x.value));
            }
            Element out = fn_.apply(args, io.functional());
            w.flops = fn_.flops(args);
            w.shape = fn_.computeShape(args);
            if (auto tile = std::get_if<Tile>(&out.v)) {
                tile->readFromMu = writeBack_;
                if (writeBack_) w.addStore(*tile);
            }
            io.work(w);
            io.push(0, Token::data(std::move(out)));
            popAll(io, n);
        }
    }

    Expr flops() const override {
        std::vector<DataType> types;
        for (auto& t : in_)
            types.push_back(t.dtype);
        return in_[0].shape.totalElements() * fn_.flops(types);
    }
    Expr onChipBytesPaper() const override {
        // Paper §4.2: an inner-product matmul keeps 16 input rows, the weight tile and (for Accum) the
        // output.
        if (fn_.kind() != Function::Kind::Matmul) return Expr(0);
        return Expr(16) * in_[0].dtype.tile.cols + in_[1].dtype.bytes();
    }
    std::int64_t computeBw() const override { return fn_.fixedCycles() ? 0 : computeBw_; }

  private:
    void checkSameShape(const Shape& a, const Shape& b, int i) const {
        if (a.numDims() != b.numDims())
            fail(fmt::format("input {} shape {} vs input 0 shape {}: {}", i, b.str(), a.str(),
                             expectedFound("equal ranks", fmt::format("{} vs {}", b.rank(), a.rank()))));
        for (int d = 0; d < a.numDims(); ++d) {
            const Expr &x = a.dims()[d].size, &y = b.dims()[d].size;
            if (x.isConst() && y.isConst() && !x.equals(y))
                fail(fmt::format("input {} shape {} vs input 0 shape {}: {} at dim {}", i, b.str(), a.str(),
                                 expectedFound(x.str(), y.str()), d));
        }
    }
    Function fn_;
    std::int64_t computeBw_ = 0;
    bool writeBack_ = false;
};

} // namespace

OperatorKind kindMap() {
    return makeKind<Map>("Map", {"fn", "compute_bw", "write_back_mu"});
}

} // namespace steprdu::step::ops
