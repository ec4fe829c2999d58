// RandomOffChipLoad: reads the tile whose index (row-major tiled layout) each address element names.
#include <fmt/format.h>

#include "step_ops/TensorStore.h"
#include "step_ops/ops/OpKinds.h"

namespace steprdu::step::ops {
namespace {

class RandomOffChipLoad : public Operator {
  public:
    using Operator::Operator;
    std::string kind() const override { return "RandomOffChipLoad"; }

    void infer(const Graph& g) override {
        expectInputs(1);
        if (!in_[0].dtype.equals(DataType::address()))
            fail("input 0 (read addresses): " + expectedFound(DataType::address().str(), in_[0].dtype.str()));
        tensor_ = g.tensorIndex(args().at("tensor").get<std::string>());
        const auto& t = g.tensor(tensor_);
        tr_ = intArg("tile_rows");
        tc_ = intArg("tile_cols");
        base_ = intArg("base_tile", 0);
        elemBytes_ = intArg("elem_bytes", elemBytes(t.elem));
        parDispatch_ = static_cast<int>(intArg("par_dispatch", 1));
        if (tr_ <= 0 || tc_ <= 0 || t.rows % tr_ || t.cols % tc_)
            fail(fmt::format("tile {}x{} must evenly divide tensor '{}' of {}x{}", tr_, tc_, t.name, t.rows,
                             t.cols));
        checkTransfer(*this, elemBytes_, parDispatch_);
        tiles_ = (t.rows / tr_) * (t.cols / tc_);
        tensorName_ = t.name;
        if (base_ < 0 || base_ >= tiles_)
            fail(fmt::format(
                "argument 'base_tile': {}",
                expectedFound(fmt::format("0..{} (tensor '{}' of {} tiles)", tiles_ - 1, t.name, tiles_),
                              std::to_string(base_))));
        out_.push_back({DataType::makeTile(tr_, tc_, t.elem), in_[0].shape});
    }

    void run(OpIO& io) const override {
        for (;;) {
            Token a = io.pop(0);
            if (a.isData()) {
                // An address is data: only the run knows whether it stays inside the tensor.
                const std::uint64_t addr = a.value.scalar();
                if (addr >= static_cast<std::uint64_t>(tiles_ - base_))
                    fail(fmt::format("read address {} (+ base tile {}) outside tensor '{}' of {} tiles", addr,
                                     base_, tensorName_, tiles_));
                std::int64_t tile = base_ + static_cast<std::int64_t>(addr);
                io.offChip({tensor_, tile, tr_, tc_, static_cast<int>(elemBytes_), parDispatch_, false});
                io.push(0, Token::data(io.memory().readTile(tensor_, tile, tr_, tc_)));
            } else {
                io.push(0, a);
            }
            if (a.isDone()) return;
        }
    }

    Expr offChipBytes() const override {
        return out_[0].shape.totalElements() * Expr(tr_ * tc_ * elemBytes_);
    }
    Expr onChipBytes() const override { return Expr(tr_ * tc_ * elemBytes_); }
    Expr onChipBytesPaper() const override { return Expr(2 * tr_ * tc_ * elemBytes_); }

  private:
    int tensor_ = -1;
    std::int64_t tr_ = 0, tc_ = 0, base_ = 0, elemBytes_ = 4, tiles_ = 0;
    int parDispatch_ = 1;
    std::string tensorName_;
};

} // namespace

OperatorKind kindRandomOffChipLoad() {
    return makeKind<RandomOffChipLoad>(
        "RandomOffChipLoad", {"tensor", "tile_rows", "tile_cols", "base_tile", "elem_bytes", "par_dispatch"});
}

} // namespace steprdu::step::ops
