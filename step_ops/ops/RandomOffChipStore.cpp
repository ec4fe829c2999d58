// RandomOffChipStore: writes each data tile at the tile index its address names; emits one ack per write,
// shaped like the address stream.
#include <fmt/format.h>

#include "step_ops/TensorStore.h"
#include "step_ops/ops/OpKinds.h"

namespace steprdu::step::ops {
namespace {

class RandomOffChipStore : public Operator {
  public:
    using Operator::Operator;
    std::string kind() const override { return "RandomOffChipStore"; }

    void infer(const Graph& g) override {
        expectInputs(2);
        if (!in_[0].dtype.equals(DataType::address()))
            fail("input 0 (write addresses): " +
                 expectedFound(DataType::address().str(), in_[0].dtype.str()));
        expectTile(1);
        tensor_ = g.tensorIndex(args().at("tensor").get<std::string>());
        const auto& tile = in_[1].dtype.tile;
        if (!tile.isStatic()) fail(expectedFound("static data tiles", tile.str()));
        elemBytes_ = intArg("elem_bytes", elemBytes(tile.elem));
        parDispatch_ = static_cast<int>(intArg("par_dispatch", 1));
        tileBytes_ = *tile.rows.constValue() * *tile.cols.constValue() * elemBytes_;
        out_.push_back({DataType::makeTile(1, 1, ElemType::Bool), in_[0].shape});
    }

    void run(OpIO& io) const override {
        for (;;) {
            Token a = io.peek(0);
            if (a.isStop()) {
                io.push(0, a);
                io.pop(0);
                continue;
            }
            while (io.peek(1).isStop())
                io.pop(1);
            Token d = io.peek(1);
            if (a.isDone() || d.isDone()) {
                if (!(a.isDone() && d.isDone()))
                    fail("address and data streams hold different numbers of elements");
                io.pop(0);
                io.pop(1);
                io.push(0, Token::done());
                return;
            }
            // Both elements leave their FIFOs once the write is acknowledged.
            const Tile& tile = d.value.tile();
            std::int64_t idx = static_cast<std::int64_t>(a.value.scalar());
            io.offChip(
                {tensor_, idx, tile.rows, tile.cols, static_cast<int>(elemBytes_), parDispatch_, true});
            io.memory().writeTile(tensor_, idx, tile);
            io.push(0, Token::data(Scalar{1}));
            io.pop(0);
            io.pop(1);
        }
    }

    Expr offChipBytes() const override { return out_[0].shape.totalElements() * Expr(tileBytes_); }
    Expr onChipBytes() const override { return Expr(tileBytes_); }
    Expr onChipBytesPaper() const override { return Expr(2 * tileBytes_); }

  private:
    int tensor_ = -1;
    std::int64_t elemBytes_ = 4, tileBytes_ = 0;
    int parDispatch_ = 1;
};

} // namespace

OperatorKind kindRandomOffChipStore() {
    return makeKind<RandomOffChipStore>("RandomOffChipStore", {"tensor", "elem_bytes", "par_dispatch"});
}

} // namespace steprdu::step::ops
