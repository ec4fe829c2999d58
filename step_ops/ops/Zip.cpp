// Zip: pairs two streams of the same shape into one stream of tuples.
#include <fmt/format.h>

#include "step_ops/ops/OpKinds.h"

namespace steprdu::step::ops {
namespace {

class Zip : public Operator {
  public:
    using Operator::Operator;
    std::string kind() const override { return "Zip"; }

    void infer(const Graph&) override {
        expectInputs(2);
        const Shape &a = in_[0].shape, &b = in_[1].shape;
        bool ok = a.numDims() == b.numDims();
        for (int d = 0; ok && d < a.numDims(); ++d) {
            const Expr &x = a.dims()[d].size, &y = b.dims()[d].size;
            ok = !(x.isConst() && y.isConst() && !x.equals(y));
        }
        if (!ok) fail(fmt::format("input shapes differ; {}", expectedFound(a.str(), b.str())));
        out_.push_back({DataType::tuple({in_[0].dtype, in_[1].dtype}), a});
    }

    void run(OpIO& io) const override {
        for (;;) {
            auto t = peekLockstep(io, *this, 2);
            if (!t[0].isData())
                io.push(0, t[0]);
            else
                io.push(0, Token::data(TupleValue{{t[0].value, t[1].value}}));
            popAll(io, 2);
            if (t[0].isDone()) return;
        }
    }
};

} // namespace

OperatorKind kindZip() {
    return makeKind<Zip>("Zip", {});
}

} // namespace steprdu::step::ops
