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
        if (!o.is_object() || !o.contains("rows") || !o.contains("cols"))
            fail("argument 'out_tile': " + expectedFound("an object with rows and cols", o.dump()));
        accType_ = DataType::makeTile(Expr::fromJson(o["rows"]), Expr::fromJson(o["cols"]),
                                      parseElemType(o.value("elem", "f32")));
        const auto& t = accType_.tile;
        if (t.rows.constValue().value_or(0) < 0 || t.cols.constValue().value_or(0) < 0)
            fail("argument 'out_tile': " + expectedFound("non-negative rows and cols", t.str()));
        // The accumulator starts as the init makes it: a scalar (Count) or a tile of floats, of the init's
        // extents if it is Zero (an Empty one has none yet: RetileRow and RetileCol grow it).
        const DataType init = init_.type();
        if (accType_.isScalar() != init.isScalar())
            fail(fmt::format("argument 'out_tile' {} and init {}: {}", t.str(), init.str(),
                             expectedFound("both scalars or both tiles of floats", "one of each")));
        const auto differ = [](const Expr& a, const Expr& b) {
            return a.isConst() && b.isConst() && !a.equals(b);
        };
        if (init_.kind == InitFn::Kind::Zero &&
            (differ(init.tile.rows, t.rows) || differ(init.tile.cols, t.cols)))
            fail(fmt::format(
                "argument 'out_tile' {} and init {}: the accumulator starts as the init makes it; {}",
                t.str(), init.str(),
                expectedFound(fmt::format("out_tile {}x{}", init.tile.rows.str(), init.tile.cols.str()),
                              fmt::format("{}x{}", t.rows.str(), t.cols.str()))));
    }
    computeBw_ = intArg("compute_bw", 0);
    if (computeBw_ < 0) fail("argument 'compute_bw': " + expectedFound(">= 0", std::to_string(computeBw_)));
    writeBack_ = boolArg("write_back_mu", false);
}

void Reduction::checkUpdateFits(const DataType& part, const std::string& what) const {
    if (part.isScalar() != accType_.isScalar())
        fail(fmt::format("{} gives {}, which does not fit the accumulator; {}", what, part.str(),
                         expectedFound(accType_.str(), part.str())));
    if (!part.isTile() || !accType_.isTile()) return;
    const auto &p = part.tile, &a = accType_.tile;
    const bool rowsDiffer = p.rows.isConst() && a.rows.isConst() && !p.rows.equals(a.rows);
    const bool colsDiffer = p.cols.isConst() && a.cols.isConst() && !p.cols.equals(a.cols);
    if (rowsDiffer || colsDiffer) {
        const char* acc = args().contains("out_tile") ? "out_tile" : "init";
        fail(fmt::format("{} gives {}x{} tiles, which do not fit the accumulator; {}: {}", what, p.rows.str(),
                         p.cols.str(), acc,
                         expectedFound(fmt::format("{}x{}", p.rows.str(), p.cols.str()),
                                       fmt::format("{}x{}", a.rows.str(), a.cols.str()))));
    }
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
    // An Empty accumulator has no rows until RetileRow or RetileCol grows it; any other function would read
    // rows it does not have, whatever out_tile declares.
    const bool grows = fn_.kind() == Function::Kind::RetileRow || fn_.kind() == Function::Kind::RetileCol;
    if (init_.kind == InitFn::Kind::Empty && !grows)
        fail(fmt::format("init Empty (no rows) with function {}: {}", fn_.name(),
                         expectedFound("RetileRow or RetileCol", fn_.name())));
    // And those grow the accumulator past any fixed init tile.
    if (grows && init_.kind != InitFn::Kind::Empty)
        fail(fmt::format("function {} grows its accumulator; init: {}", fn_.name(),
                         expectedFound("Empty", init_.type().str())));
    checkUpdateFits(fn_.outputType({accType_, in_[0].dtype}, where()),
                    fmt::format("{}(accumulator, input)", fn_.name()));
}

} // namespace steprdu::step::ops
