// LinearOffChipLoad: an affine tiled read of an off-chip tensor, once (static) or once per element of a
// reference stream (the paper's Figure 2; the artifact's DynOffChipLoad).
#include <fmt/format.h>

#include "step_ops/TensorStore.h"
#include "step_ops/ops/OpKinds.h"

namespace steprdu::step::ops {
namespace {

class LinearOffChipLoad : public Operator {
  public:
    using Operator::Operator;
    std::string kind() const override { return "LinearOffChipLoad"; }

    void infer(const Graph& g) override {
        if (in_.size() > 1)
            fail(expectedFound("0 inputs, or 1 reference stream", std::to_string(in_.size())));
        tensor_ = g.tensorIndex(args().at("tensor").get<std::string>());
        const auto& t = g.tensor(tensor_);
        tr_ = intArg("tile_rows");
        tc_ = intArg("tile_cols");
        stride_ = intListArg("stride");
        outShape_ = intListArg("out_shape");
        elemBytes_ = intArg("elem_bytes", elemBytes(t.elem));
        parDispatch_ = static_cast<int>(intArg("par_dispatch", 1));
        if (tr_ <= 0 || tc_ <= 0 || t.rows % tr_ || t.cols % tc_)
            fail(fmt::format("tile {}x{} must evenly divide tensor '{}' of {}x{}", tr_, tc_, t.name, t.rows,
                             t.cols));
        if (stride_.size() != outShape_.size() || outShape_.empty())
            fail(expectedFound("stride and out_shape of equal, non-zero length",
                               fmt::format("{} and {}", stride_.size(), outShape_.size())));
        checkTransfer(*this, elemBytes_, parDispatch_);
        // The pattern's first and last tiles bound every tile it reads; each term is checked before it is
        // added, so that no product or sum overflows.
        std::int64_t minIdx = 0, maxIdx = 0, tiles = (t.rows / tr_) * (t.cols / tc_);
        for (std::size_t i = 0; i < stride_.size(); ++i) {
            if (outShape_[i] <= 0) fail("out_shape entries must be positive");
            const std::int64_t steps = outShape_[i] - 1, s = stride_[i];
            if (steps > 0 && s != 0 && (s > tiles || s < -tiles || steps > tiles))
                fail(fmt::format("out_shape {} and stride {} at dim {} leave tensor '{}' ({} tiles of {}x{})",
                                 outShape_[i], s, i, t.name, tiles, tr_, tc_));
            (s < 0 ? minIdx : maxIdx) += steps * s;
            if (minIdx < 0 || maxIdx >= tiles)
                fail(fmt::format(
                    "the affine pattern reaches tile {}, but tensor '{}' has tiles 0..{} of {}x{}",
                    minIdx < 0 ? minIdx : maxIdx, t.name, tiles - 1, tr_, tc_));
        }
        std::vector<Dim> dims;
        if (in_.empty())
            dims.push_back(Dim(1));
        else
            dims = in_[0].shape.dims();
        for (auto d : outShape_)
            dims.push_back(Dim(d));
        out_.push_back({DataType::makeTile(tr_, tc_, t.elem), Shape(dims)});
    }

    void run(OpIO& io) const override {
        int levels = static_cast<int>(outShape_.size());
        auto pattern = [&]() {
            emitNested(io, 0, outShape_, 0, [&](const std::vector<std::int64_t>& idx) {
                std::int64_t tile = 0;
                for (std::size_t i = 0; i < idx.size(); ++i)
                    tile += idx[i] * stride_[i];
                io.offChip({tensor_, tile, tr_, tc_, static_cast<int>(elemBytes_), parDispatch_, false});
                io.push(0, Token::data(io.memory().readTile(tensor_, tile, tr_, tc_)));
            });
        };
        if (in_.empty()) {
            pattern();
            io.push(0, Token::stop(levels));
            io.push(0, Token::done());
            return;
        }
        for (;;) {
            Token r = io.peek(0);
            if (r.isDone()) break;
            if (r.isStop()) {
                io.push(0, Token::stop(r.level + levels));
                io.pop(0);
                continue;
            }
            io.pop(0); // as the published operator: the reference leaves its FIFO before the replay
            pattern();
            closeExpansion(io, 0, 0, levels, in_[0].shape.rank());
        }
        io.pop(0);
        io.push(0, Token::done());
    }

    Expr offChipBytes() const override { return out_[0].shape.totalElements() * Expr(tileBytes()); }
    Expr onChipBytes() const override { return Expr(tileBytes()); }
    Expr onChipBytesPaper() const override { return Expr(2 * tileBytes()); }
    Expr volume() const override { return out_[0].shape.totalElements(); }

  private:
    std::int64_t tileBytes() const { return tr_ * tc_ * elemBytes_; }
    int tensor_ = -1;
    std::int64_t tr_ = 0, tc_ = 0, elemBytes_ = 4;
    int parDispatch_ = 1;
    std::vector<std::int64_t> stride_, outShape_;
};

} // namespace

OperatorKind kindLinearOffChipLoad() {
    return makeKind<LinearOffChipLoad>("LinearOffChipLoad", {"tensor", "tile_rows", "tile_cols", "stride",
                                                             "out_shape", "elem_bytes", "par_dispatch"});
}

} // namespace steprdu::step::ops
