#include "python/bindings/Program.h"

namespace steprdu::py {

step::Graph Program::finalized() const {
    step::Graph g = step::Graph::fromJson(b_.graph().toJson());
    g.finalize();
    return g;
}

nlohmann::json Program::toJson() const {
    nlohmann::json j = finalized().toJson();
    if (!bindings_.empty()) j["bindings"] = bindings_;
    return j;
}

} // namespace steprdu::py
