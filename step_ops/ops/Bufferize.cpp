// Bufferize: stores each rank-b sub-tensor of the input in on-chip memory and emits a reference to it
// (the paper's Figure 3).
#include <fmt/format.h>

#include "step_ops/ops/OpKinds.h"

namespace steprdu::step::ops {
namespace {

class Bufferize : public Operator {
  public:
    using Operator::Operator;
    std::string kind() const override { return "Bufferize"; }

    void infer(const Graph&) override {
        expectInputs(1);
        // Buffers hold tiles or scalars (addresses buffered and replayed), not selectors or buffers.
        if (!in_[0].dtype.isTile())
            fail("input 0: " + expectedFound("a tile or scalar stream", in_[0].str()));
        rank_ = static_cast<int>(intArg("rank"));
        if (rank_ < 1 || rank_ > in_[0].shape.rank())
            fail(fmt::format("argument 'rank': {}",
                             expectedFound(fmt::format("1..{} (the input rank)", in_[0].shape.rank()),
                                           std::to_string(rank_))));
        Shape buf = in_[0].shape.inner(rank_);
        // Only the buffer's outermost dimension may be ragged; inner ones must be regular.
        for (int r = 0; r + 1 < rank_; ++r)
            if (buf.atRank(r).kind == DimKind::Ragged)
                fail(fmt::format("buffered dimension at rank {} is ragged ({}); only the outermost buffered "
                                 "dimension may be",
                                 r, buf.str()));
        out_.push_back({DataType::buffer(in_[0].dtype.tile, buf), in_[0].shape.outer(rank_)});
    }

    void run(OpIO& io) const override {
        auto content = std::make_shared<std::vector<Token>>();
        std::int64_t bytes = 0;
        Work w;
        w.kind = Work::Kind::BufferElement; // one element written per cycle
        for (;;) {
            Token t = io.peek(0);
            if (t.isDone()) {
                if (!content->empty()) fail("input ended inside a buffered sub-tensor");
                io.push(0, t);
                io.pop(0);
                return;
            }
            if (t.isData() || t.level < rank_) {
                if (t.isData()) {
                    bytes += t.value.bytes();
                    w.elementBytes = t.value.bytes();
                    io.work(w);
                }
                content->push_back(std::move(t));
                io.pop(0);
                continue;
            }
            io.push(0, Token::data(BufferRef{content, bytes}));
            if (t.level > rank_) io.push(0, Token::stop(t.level - rank_));
            io.pop(0);
            content = std::make_shared<std::vector<Token>>();
            bytes = 0;
        }
    }

    // Double-buffered: 2 x buffer + one input tile.
    Expr onChipBytes() const override { return Expr(2) * out_[0].dtype.bytes() + in_[0].dtype.bytes(); }

  private:
    int rank_ = 1;
};

} // namespace

OperatorKind kindBufferize() {
    return makeKind<Bufferize>("Bufferize", {"rank"});
}

} // namespace steprdu::step::ops
