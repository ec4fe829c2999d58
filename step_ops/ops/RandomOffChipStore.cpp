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
        const auto& t = g.tensor(tensor_);
        const auto& tile = in_[1].dtype.tile;
        if (!tile.isStatic()) fail(expectedFound("static data tiles", tile.str()));
        elemBytes_ = intArg("elem_bytes", elemBytes(tile.elem));
        const std::int64_t par = intArg("par_dispatch", 1);
        checkTransfer(*this, elemBytes_, par);
        parDispatch_ = static_cast<int>(par);
        const std::int64_t r = *tile.rows.constValue(), c = *tile.cols.constValue();
        if (r < 1 || c < 1 || t.rows % r || t.cols % c)
            fail(fmt::format("input tile {}x{} does not evenly divide tensor '{}' of {}x{}", r, c, t.name,
                             t.rows, t.cols));
        tiles_ = (t.rows / r) * (t.cols / c);
        tensorName_ = t.name;
        tileBytes_ = r * c * elemBytes_;
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
            // An address is data: only the run knows whether it stays inside the tensor.
            if (a.value.scalar() >= static_cast<std::uint64_t>(tiles_))
                fail(fmt::format("write address {} outside tensor '{}' of {} tiles", a.value.scalar(),
                                 tensorName_, tiles_));
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
    std::int64_t elemBytes_ = 4, tileBytes_ = 0, tiles_ = 0;
    int parDispatch_ = 1;
    std::string tensorName_;
};

} // namespace

OperatorKind kindRandomOffChipStore() {
    return makeKind<RandomOffChipStore>("RandomOffChipStore", {"tensor", "elem_bytes", "par_dispatch"});
}

} // namespace steprdu::step::ops
