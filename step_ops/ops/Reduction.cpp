#include "step_ops/ops/Reduction.h"

#include <fmt/format.h>

namespace steprdu::step::ops {

void Reduction::inferCommon() {
    rank_ = static_cast<int>(intArg("rank"));
    if (rank_ < 1 || rank_ > in_[0].shape.rank())
        fail("argument 'rank': " + expectedFound(fmt::format("1..{} (the input rank)", in_[0].shape.rank()),
                                                 std::to_string(rank_)));
    init_ = InitFn::fromJson(args().at("init"));
    accType_ = init_.type();
    if (args().contains("out_tile")) {
        const auto& o = args()["out_tile"];
        accType_ = DataType::makeTile(Expr::fromJson(o.at("rows")), Expr::fromJson(o.at("cols")),
                                      parseElemType(o.value("elem", "f32")));
    }
    computeBw_ = intArg("compute_bw", 0);
    writeBack_ = boolArg("write_back_mu", false);
}

Element Reduction::finish(Element acc, Work& w) const {
    if (auto t = std::get_if<Tile>(&acc.v)) {
        t->readFromMu = writeBack_;
        if (writeBack_) w.addStore(*t);
    }
    return acc;
}

Work Reduction::updateWork(const Function& fn, const std::vector<Element>& streamed,
                           const std::vector<Element>& fnArgs) const {
    Work w;
    w.computeBw = computeBw_;
    w.fixedCycles = fn.fixedCycles();
    w.flops = fn.flops(fnArgs);
    w.shape = fn.computeShape(fnArgs);
    for (auto& x : streamed)
        if (auto t = std::get_if<Tile>(&x.v); t && t->readFromMu) w.addLoad(*t);
    return w;
}

void UnaryReduction::inferUnary() {
    expectInputs(1);
    inferCommon();
    fn_ = Function::fromJson(args().at("fn"));
    fn_.outputType({accType_, in_[0].dtype}, where());
}

} // namespace steprdu::step::ops
