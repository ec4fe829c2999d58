// Partition: routes each rank-b chunk of the input to the outputs its selector names.
#include <fmt/format.h>

#include "step_ops/ops/OpKinds.h"

namespace steprdu::step::ops {
namespace {

class Partition : public Operator {
  public:
    using Operator::Operator;
    std::string kind() const override { return "Partition"; }

    void infer(const Graph&) override {
        expectInputs(2);
        rank_ = static_cast<int>(intArg("rank"));
        n_ = static_cast<int>(intArg("num_consumers"));
        writeBack_ = boolArg("write_back_mu", false);
        const Shape &in = in_[0].shape, &sel = in_[1].shape;
        if (in_[1].dtype.kind != DataType::Kind::Selector)
            fail("input 1 (selector): " + expectedFound("a selector stream", in_[1].dtype.str()));
        if (n_ < 1) fail("argument 'num_consumers': " + expectedFound(">= 1", std::to_string(n_)));
        if (in_[1].dtype.selectorWidth != n_)
            fail(fmt::format("selector width {} != num_consumers {}", in_[1].dtype.selectorWidth, n_));
        if (rank_ < 0 || rank_ > in.rank())
            fail("argument 'rank': " + expectedFound(fmt::format("0..{}", in.rank()), std::to_string(rank_)));
        checkOuterMatch(in, sel, rank_);
        for (int i = 0; i < n_; ++i) {
            std::vector<Dim> dims{Dim::dynamic(fmt::format("{}_{:03d}", name(), i))};
            out_.push_back({in_[0].dtype, Shape(dims).concat(in.inner(rank_))});
        }
    }

    void run(OpIO& io) const override {
        // The published simulator's order: the selector is dequeued before its chunk; each element is read
        // from its memory unit, dequeued, then switched (one cycle) to the selected outputs.
        std::vector<int> all(n_);
        for (int i = 0; i < n_; ++i)
            all[i] = i;
        for (;;) {
            Token s = io.pop(1);
            if (s.isDone()) {
                // Outputs close with the selector stream, before the input's end is seen: inside a feedback
                // loop the input can only end once the outputs have.
                for (int i : all)
                    io.push(i, Token::done());
                expect(io.pop(0), Token::Kind::Done, 0);
                return;
            }
            if (s.isStop()) { // an outer boundary with no chunk before it
                expect(io.pop(0), Token::Kind::Stop, s.level + rank_);
                continue;
            }
            const auto targets = s.value.selector().selected;
            for (;;) {
                Token t = io.peek(0);
                if (t.isDone()) fail("input ended inside a chunk");
                if (rank_ == 0 && !t.isData())
                    fail("input and selector disagree: expected an element, found " + t.str());
                if (t.isData()) {
                    Work read;
                    read.kind = Work::Kind::MemoryRead;
                    if (auto tile = std::get_if<Tile>(&t.value.v); tile && tile->readFromMu)
                        read.addLoad(*tile);
                    io.work(read);
                }
                io.pop(0);
                if (t.isData()) {
                    Work sw;
                    sw.kind = Work::Kind::Route;
                    sw.elementBytes = t.value.bytes();
                    // The element now travels on the network: its consumers read it from a memory unit only
                    // if this switch writes it back to one.
                    if (auto tile = std::get_if<Tile>(&t.value.v)) {
                        tile->readFromMu = writeBack_;
                        if (writeBack_) sw.addStore(*tile);
                    }
                    io.work(sw);
                }
                bool closes = t.isStop() && t.level >= rank_;
                for (int i : targets)
                    io.push(i, closes ? Token::stop(rank_) : t);
                if (closes && t.level > rank_) expect(io.pop(1), Token::Kind::Stop, t.level - rank_);
                if (closes || (rank_ == 0 && t.isData())) break;
            }
        }
    }

  private:
    void expect(const Token& t, Token::Kind k, int level) const {
        if (t.kind != k || (k == Token::Kind::Stop && t.level != level))
            fail(fmt::format("input and selector streams disagree: expected {}, found {}",
                             k == Token::Kind::Stop ? "S" + std::to_string(level) : "D", t.str()));
    }
    void checkOuterMatch(const Shape& in, const Shape& sel, int rank) const {
        Shape outer = in.outer(rank);
        if (outer.numDims() != sel.numDims())
            fail(fmt::format("selector shape {} must equal the input's outer dims {}", sel.str(),
                             outer.str()));
        for (int i = 0; i < sel.numDims(); ++i) {
            const Expr &a = outer.dims()[i].size, &b = sel.dims()[i].size;
            if (a.isConst() && b.isConst() && !a.equals(b))
                fail(fmt::format("selector shape {} vs input outer dims {}: {}", sel.str(), outer.str(),
                                 expectedFound(a.str(), b.str())));
        }
    }
    int rank_ = 0, n_ = 1;
    bool writeBack_ = false;
};

} // namespace

OperatorKind kindPartition() {
    return makeKind<Partition>("Partition", {"rank", "num_consumers", "switch_cycles", "write_back_mu"});
}

} // namespace steprdu::step::ops
