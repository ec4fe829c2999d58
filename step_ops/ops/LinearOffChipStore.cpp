// LinearOffChipStore: writes the input tiles to an off-chip tensor in row-major tile order.
#include <fmt/format.h>

#include "step_ops/TensorStore.h"
#include "step_ops/ops/OpKinds.h"

namespace steprdu::step::ops {
namespace {

class LinearOffChipStore : public Operator {
  public:
    using Operator::Operator;
    std::string kind() const override { return "LinearOffChipStore"; }

    void infer(const Graph& g) override {
        expectInputs(1);
        expectTile(0);
        tensor_ = g.tensorIndex(args().at("tensor").get<std::string>());
        const std::int64_t par = intArg("par_dispatch", 1);
        checkTransfer(*this, elemBytes(in_[0].dtype.tile.elem), par);
        parDispatch_ = static_cast<int>(par);
        const auto& t = g.tensor(tensor_);
        const auto& tile = in_[0].dtype.tile;
        if (!tile.isStatic()) fail(expectedFound("static input tiles", tile.str()));
        std::int64_t r = *tile.rows.constValue(), c = *tile.cols.constValue();
        if (r < 1 || c < 1 || t.rows % r || t.cols % c)
            fail(fmt::format("input tile {}x{} does not evenly divide tensor '{}' of {}x{}", r, c, t.name,
                             t.rows, t.cols));
        tiles_ = (t.rows / r) * (t.cols / c);
        tensorName_ = t.name;
        auto n = in_[0].shape.totalElements().constValue();
        if (n && *n > tiles_)
            fail(fmt::format("stream of {} tiles does not fit tensor '{}' ({} tiles of {}x{})", *n, t.name,
                             (t.rows / r) * (t.cols / c), r, c));
    }

    void run(OpIO& io) const override {
        std::int64_t next = 0;
        for (;;) {
            Token t = io.peek(0);
            if (t.isData()) { // the tile leaves its FIFO once all its writes are acknowledged
                const Tile& tile = t.value.tile();
                // A data-dependent stream length is known only now.
                if (next >= tiles_)
                    fail(fmt::format("stream holds more than the {} tiles of tensor '{}'", tiles_,
                                     tensorName_));
                io.offChip({tensor_, next, tile.rows, tile.cols, elemBytes(tile.elem), parDispatch_, true});
                io.memory().writeTile(tensor_, next++, tile);
            }
            io.pop(0);
            if (t.isDone()) return;
        }
    }

    // The artifact counts the input's dtype bytes (f32: 4 B) for stores.
    Expr offChipBytes() const override { return in_[0].shape.totalElements() * in_[0].dtype.bytes(); }
    Expr onChipBytes() const override { return in_[0].dtype.bytes(); }
    Expr onChipBytesPaper() const override { return Expr(2) * in_[0].dtype.bytes(); }

  private:
    int tensor_ = -1;
    int parDispatch_ = 1;
    std::int64_t tiles_ = 0;
    std::string tensorName_;
};

} // namespace

OperatorKind kindLinearOffChipStore() {
    return makeKind<LinearOffChipStore>("LinearOffChipStore", {"tensor", "par_dispatch"});
}

} // namespace steprdu::step::ops
