// RepeatStatic: the static variant of Expand; repeats every element `count` times in a new innermost
// dimension.
#include "step_ops/ops/OpKinds.h"

namespace steprdu::step::ops {
namespace {

class RepeatStatic : public Operator {
  public:
    using Operator::Operator;
    std::string kind() const override { return "RepeatStatic"; }

    void infer(const Graph&) override {
        expectInputs(1);
        count_ = intArg("count");
        if (count_ < 1) fail("argument 'count': " + expectedFound(">= 1", std::to_string(count_)));
        out_.push_back({in_[0].dtype, in_[0].shape.concat(Shape({Dim(count_)}))});
    }

    void run(OpIO& io) const override {
        Work w;
        w.kind = Work::Kind::Repeat;
        for (;;) {
            Token t = io.peek(0);
            if (t.isDone()) break;
            if (t.isStop()) {
                io.push(0, Token::stop(t.level + 1));
                io.pop(0);
                continue;
            }
            w.elementBytes = t.value.bytes();
            emitNested(io, 0, {count_}, 0, [&](const std::vector<std::int64_t>&) {
                io.push(0, t);
                io.work(w); // one copy per cycle
            });
            io.pop(0);
            closeExpansion(io, 0, 0, 1, in_[0].shape.rank());
        }
        io.pop(0);
        io.push(0, Token::done());
    }

    // The artifact counts the repeated tile (a quirk the figures include).
    Expr onChipBytes() const override { return in_[0].dtype.bytes(); }

  private:
    std::int64_t count_ = 1;
};

} // namespace

OperatorKind kindRepeatStatic() {
    return makeKind<RepeatStatic>("RepeatStatic", {"count"});
}

} // namespace steprdu::step::ops
