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

std::vector<Token> popLockstep(OpIO& io, const Operator& op, int numInputs) {
    std::vector<Token> t;
    for (int i = 0; i < numInputs; ++i) t.push_back(io.pop(i));
    for (int i = 1; i < numInputs; ++i)
        if (t[i].kind != t[0].kind || t[i].level != t[0].level)
            throw BadInput(fmt::format("{}: input streams disagree in structure: input 0 has {} where input {} "
                                       "has {}",
                                       op.where(), t[0].str(), i, t[i].str()));
    return t;
}

} // namespace ops
} // namespace steprdu::step
