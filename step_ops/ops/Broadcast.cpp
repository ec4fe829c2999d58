// Broadcast: copies every token to each output; the graph inserts it wherever a stream fans out.
#include "step_ops/ops/OpKinds.h"

namespace steprdu::step::ops {
namespace {

class Broadcast : public Operator {
  public:
    using Operator::Operator;
    std::string kind() const override { return "Broadcast"; }

    void infer(const Graph&) override {
        expectInputs(1);
        int n = static_cast<int>(intArg("num_consumers"));
        if (n < 1) fail("argument 'num_consumers': " + expectedFound(">= 1", std::to_string(n)));
        out_.assign(n, in_[0]);
    }

    void run(OpIO& io) const override {
        // As the published simulator's Broadcast: dequeue, wait until every output has room, send to all at
        // once.
        for (;;) {
            Token t = io.pop(0);
            if (t.isData())
                for (std::size_t i = 0; i < out_.size(); ++i)
                    io.awaitCapacity(static_cast<int>(i));
            for (std::size_t i = 0; i < out_.size(); ++i)
                io.push(static_cast<int>(i), t);
            if (t.isDone()) return;
        }
    }
};

} // namespace

OperatorKind kindBroadcast() {
    return makeKind<Broadcast>("Broadcast", {"num_consumers"});
}

} // namespace steprdu::step::ops
