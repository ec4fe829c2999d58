// Reassemble: for each selector, collects one rank-b chunk from every selected input, in the order the
// inputs become available, and closes a new dimension around them (the paper's Figure 4).
#include <algorithm>

#include <fmt/format.h>

#include "step_ops/ops/OpKinds.h"

namespace steprdu::step::ops {
namespace {

class Reassemble : public Operator {
  public:
    using Operator::Operator;
    std::string kind() const override { return "Reassemble"; }

    void infer(const Graph&) override {
        if (in_.size() < 2)
            fail(expectedFound("at least one data stream and a selector", std::to_string(in_.size())));
        n_ = static_cast<int>(in_.size()) - 1;
        rank_ = static_cast<int>(intArg("rank"));
        writeBack_ = boolArg("write_back_mu", false);
        const StreamType& sel = in_[n_];
        if (sel.dtype.kind != DataType::Kind::Selector || sel.dtype.selectorWidth != n_)
            fail(fmt::format("last input (selector): {}",
                             expectedFound(fmt::format("MultiHot<{}>", n_), sel.dtype.str())));
        for (int i = 0; i < n_; ++i) {
            if (in_[i].shape.rank() != rank_)
                fail(fmt::format("input {} shape {}: {}", i, in_[i].shape.str(),
                                 expectedFound(fmt::format("rank {} (the reassemble rank)", rank_),
                                               std::to_string(in_[i].shape.rank()))));
        }
        DataType type = mergedType(*this, in_, n_);
        std::vector<Dim> dims = sel.shape.dims();
        dims.push_back(Dim::ragged(name() + "_dyn"));
        out_.push_back({type, Shape(dims).concat(in_[0].shape.inner(rank_))});
    }

    void run(OpIO& io) const override {
        for (;;) {
            Token s = io.pop(n_); // dequeued before its chunks, as in the published simulator
            if (s.isDone()) break;
            if (s.isStop()) {
                io.push(0, Token::stop(s.level + rank_ + 1));
                continue;
            }
            std::vector<int> pending = s.value.selector().selected;
            while (!pending.empty()) {
                int i = io.firstAvailable(pending);
                pending.erase(std::find(pending.begin(), pending.end(), i));
                drainChunk(io, i);
                if (!pending.empty() && rank_ > 0) io.push(0, Token::stop(rank_));
            }
            closeExpansion(io, n_, 0, rank_ + 1, in_[n_].shape.rank());
        }
        // The output closes with the selector stream, before the inputs' ends are seen: inside a feedback
        // loop an input can only end once this output has.
        io.push(0, Token::done());
        for (int i = 0; i < n_; ++i)
            if (!io.pop(i).isDone()) fail(fmt::format("input {} has elements no selector asked for", i));
    }

  private:
    void drainChunk(OpIO& io, int i) const {
        for (;;) {
            Token t = io.peek(i);
            if (t.isDone()) fail(fmt::format("input {} ended before the selector stream", i));
            if (t.isData()) { // leaves no earlier than its arrival + switch + memory-unit read
                Work w;
                w.kind = Work::Kind::Route;
                w.arrivalInput = i;
                w.elementBytes = t.value.bytes();
                if (auto tile = std::get_if<Tile>(&t.value.v)) {
                    if (tile->readFromMu) w.addLoad(*tile);
                    // Forwarded on the network, as Partition does.
                    tile->readFromMu = writeBack_;
                    if (writeBack_) w.addStore(*tile);
                }
                io.work(w);
            }
            io.pop(i);
            bool end = (t.isData() && rank_ == 0) || (t.isStop() && t.level >= rank_);
            if (!t.isStop() || t.level < rank_) io.push(0, t);
            if (end) return;
        }
    }
    int n_ = 1, rank_ = 0;
    bool writeBack_ = false;
};

} // namespace

OperatorKind kindReassemble() {
    return makeKind<Reassemble>("Reassemble", {"rank", "switch_cycles", "write_back_mu"});
}

} // namespace steprdu::step::ops
