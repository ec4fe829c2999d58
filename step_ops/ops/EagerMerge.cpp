// EagerMerge: merges rank-a chunks from its inputs in arrival order; a second output names the source of
// each chunk.
#include <algorithm>

#include <fmt/format.h>

#include "step_ops/ops/OpKinds.h"

namespace steprdu::step::ops {
namespace {

class EagerMerge : public Operator {
  public:
    using Operator::Operator;
    std::string kind() const override { return "EagerMerge"; }

    void infer(const Graph&) override {
        if (in_.empty()) fail(expectedFound("at least one input", "0"));
        rank_ = static_cast<int>(intArg("rank"));
        Expr total(0);
        bool ragged = false;
        for (std::size_t i = 0; i < in_.size(); ++i) {
            if (in_[i].shape.rank() != rank_)
                fail(fmt::format(
                    "input {} shape {}: {}", i, in_[i].shape.str(),
                    expectedFound(fmt::format("rank {}", rank_), std::to_string(in_[i].shape.rank()))));
            total += in_[i].shape.dims()[0].size;
            ragged = ragged || in_[i].shape.dims()[0].kind == DimKind::Ragged;
        }
        DataType type = mergedType(*this, in_, in_.size());
        Dim outer = ragged ? Dim(total, DimKind::Ragged) : Dim::derived(total);
        out_.push_back({type, Shape({outer}).concat(in_[0].shape.inner(rank_))});
        out_.push_back({DataType::selector(static_cast<int>(in_.size())), Shape({outer})});
    }

    void run(OpIO& io) const override {
        std::vector<int> open(in_.size());
        for (std::size_t i = 0; i < in_.size(); ++i)
            open[i] = static_cast<int>(i);
        Work w;
        w.kind = Work::Kind::Merge;
        while (!open.empty()) {
            int i = io.firstAvailable(open);
            if (io.peek(i).isDone()) {
                io.pop(i);
                open.erase(std::find(open.begin(), open.end(), i));
                continue;
            }
            io.push(1, Token::data(Selector{static_cast<int>(in_.size()), {i}}));
            // As the published operator: each element is dequeued, then forwarded; one cycle passes between
            // the elements of a chunk (none after its last).
            bool first = true;
            for (;;) {
                Token t = io.pop(i);
                if (t.isDone()) fail(fmt::format("input {} ended inside a chunk", i));
                if (t.isData() && !first) {
                    w.elementBytes = t.value.bytes();
                    io.work(w);
                }
                if (t.isData()) first = false;
                io.push(0, t);
                if ((t.isData() && rank_ == 0) || (t.isStop() && t.level >= rank_)) break;
            }
        }
        io.push(0, Token::done());
        io.push(1, Token::done());
    }

  private:
    int rank_ = 0;
};

} // namespace

OperatorKind kindEagerMerge() {
    return makeKind<EagerMerge>("EagerMerge", {"rank"});
}

} // namespace steprdu::step::ops
