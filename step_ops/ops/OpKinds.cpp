#include "step_ops/ops/OpKinds.h"

#include <fmt/format.h>

#include "util/Error.h"

namespace steprdu::step {

const std::vector<OperatorKind>& operatorKinds() {
#define STEPRDU_LIST_KIND(K) ops::kind##K(),
    static const std::vector<OperatorKind> kinds{STEPRDU_OPERATOR_KINDS(STEPRDU_LIST_KIND)};
#undef STEPRDU_LIST_KIND
    return kinds;
}

namespace ops {

void checkTransfer(const Operator& op, std::int64_t elemBytes, std::int64_t parDispatch) {
    if (elemBytes < 1 || elemBytes > 8)
        throw BadInput(fmt::format("{}: argument 'elem_bytes': {}", op.where(),
                                   expectedFound("1..8", std::to_string(elemBytes))));
    if (parDispatch < 1 || parDispatch > 1024)
        throw BadInput(fmt::format("{}: argument 'par_dispatch': {}", op.where(),
                                   expectedFound("1..1024", std::to_string(parDispatch))));
}

DataType mergedType(const Operator& op, const std::vector<StreamType>& inputs, std::size_t count) {
    DataType t = inputs[0].dtype;
    for (std::size_t i = 1; i < count; ++i) {
        const DataType& d = inputs[i].dtype;
        if (d.equals(t)) continue;
        auto differsOnlySymbolically = [](const Expr& a, const Expr& b) {
            return a.equals(b) || !a.isConst() || !b.isConst();
        };
        if (t.isTile() && d.isTile() && t.tile.elem == d.tile.elem &&
            differsOnlySymbolically(t.tile.rows, d.tile.rows) &&
            differsOnlySymbolically(t.tile.cols, d.tile.cols)) {
            if (!t.tile.rows.equals(d.tile.rows)) t.tile.rows = Expr::sym(op.name() + "_rows");
            if (!t.tile.cols.equals(d.tile.cols)) t.tile.cols = Expr::sym(op.name() + "_cols");
            continue;
        }
        throw BadInput(
            fmt::format("{}: input {}: {}", op.where(), i, expectedFound(inputs[0].dtype.str(), d.str())));
    }
    return t;
}

void popAll(OpIO& io, int numInputs) {
    for (int i = 0; i < numInputs; ++i)
        io.pop(i);
}

std::vector<Token> peekLockstep(OpIO& io, const Operator& op, int numInputs) {
    std::vector<Token> t;
    for (int i = 0; i < numInputs; ++i)
        t.push_back(io.peek(i));
    for (int i = 1; i < numInputs; ++i)
        if (t[i].kind != t[0].kind || t[i].level != t[0].level)
            throw BadInput(
                fmt::format("{}: input streams disagree in structure: input 0 has {} where input {} "
                            "has {}",
                            op.where(), t[0].str(), i, t[i].str()));
    return t;
}

} // namespace ops
} // namespace steprdu::step
