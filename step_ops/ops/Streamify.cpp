// Streamify: streams the tiles of each buffer, repeated a static number of times or once per element of a
// reference stream's inner dimensions (the paper's Figure 3).
#include <fmt/format.h>

#include "step_ops/ops/OpKinds.h"

namespace steprdu::step::ops {
namespace {

class Streamify : public Operator {
  public:
    using Operator::Operator;
    std::string kind() const override { return "Streamify"; }

    void infer(const Graph&) override {
        if (in_.empty() || in_.size() > 2)
            fail(expectedFound("a buffer stream and an optional reference", std::to_string(in_.size())));
        if (in_[0].dtype.kind != DataType::Kind::Buffer)
            fail("input 0: " + expectedFound("a buffer stream", in_[0].dtype.str()));
        const Shape& buf = *in_[0].dtype.bufferShape;
        bufRank_ = buf.numDims();
        DataType tile = DataType::makeTile(in_[0].dtype.tile);
        if (in_.size() == 1) {
            repeat_ = args().contains("repeat") ? intListArg("repeat") : std::vector<std::int64_t>{};
            for (auto r : repeat_)
                if (r < 1)
                    fail("argument 'repeat': " + expectedFound("counts >= 1", args()["repeat"].dump()));
            std::vector<Dim> dims = in_[0].shape.dims();
            for (auto r : repeat_)
                dims.push_back(Dim(r));
            out_.push_back({tile, Shape(dims).concat(buf)});
            return;
        }
        if (args().contains("repeat")) fail("give either 'repeat' or a reference stream, not both");
        const Shape& ref = in_[1].shape;
        scope_ = ref.rank() - in_[0].shape.rank();
        if (scope_ < 0) fail(expectedFound("a reference of rank >= the buffer stream's", ref.str()));
        for (int i = 0; i < in_[0].shape.numDims(); ++i) {
            const auto& a = in_[0].shape.dims()[i].size;
            const auto& b = ref.dims()[i].size;
            if (a.isConst() && b.isConst() && !a.equals(b))
                fail(fmt::format("reference shape {} does not extend buffer stream shape {}; {}", ref.str(),
                                 in_[0].shape.str(),
                                 expectedFound(a.str(), b.str()) + " at dim " + std::to_string(i)));
        }
        out_.push_back({tile, ref.concat(buf)});
    }

    void run(OpIO& io) const override {
        auto emitBuffer = [&](const Element& b) {
            Work w;
            w.kind = Work::Kind::BufferElement;
            for (const Token& t : *b.buffer().tokens) {
                io.push(0, t);
                if (t.isData()) {
                    w.elementBytes = t.value.bytes();
                    io.work(w);
                }
            }
        };
        if (in_.size() == 1) {
            int levels = static_cast<int>(repeat_.size()) + bufRank_;
            for (;;) {
                Token t = io.peek(0);
                if (t.isDone()) break;
                if (t.isStop()) {
                    io.push(0, Token::stop(t.level + levels));
                    io.pop(0);
                    continue;
                }
                emitNested(io, 0, repeat_, bufRank_,
                           [&](const std::vector<std::int64_t>&) { emitBuffer(t.value); });
                io.pop(0); // the buffer reference leaves its FIFO once streamed
                closeExpansion(io, 0, 0, levels, in_[0].shape.rank());
            }
            io.pop(0);
            io.push(0, Token::done());
            return;
        }
        replayAlongRef(io, *this, scope_, scope_, bufRank_, emitBuffer);
    }

    Expr onChipBytes() const override {
        return in_[0].dtype.bytes() + DataType::makeTile(in_[0].dtype.tile).bytes();
    }
    Expr onChipBytesPaper() const override { return Expr(0); }

  private:
    std::vector<std::int64_t> repeat_;
    int bufRank_ = 0, scope_ = 0;
};

} // namespace

OperatorKind kindStreamify() {
    return makeKind<Streamify>("Streamify", {"repeat"});
}

} // namespace steprdu::step::ops
