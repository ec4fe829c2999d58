#pragma once
// A STeP program as Python builds it (`steprdu.Graph`): the C++ GraphBuilder, the values of its
// data-dependent sizes, and the finalized copies that metrics and runs take (the builder keeps growing).
#include <nlohmann/json.hpp>

#include "step_ops/GraphBuilder.h"

namespace steprdu::py {

class Program {
  public:
    step::GraphBuilder& builder() { return b_; }
    const step::Graph& graph() const { return b_.graph(); }
    // Symbol -> count: the sizes a run or the metrics take for data-dependent dimensions.
    step::Bindings& bindings() { return bindings_; }
    const step::Bindings& bindings() const { return bindings_; }
    // The program with its fan-outs given Broadcasts (as the graph file holds it); throws BadInput naming a
    // dangling stream or an unconnected placeholder.
    step::Graph finalized() const;
    // The graph file `steprdu run-graph` reads (format steprdu-graph-1, with the bindings).
    nlohmann::json toJson() const;

  private:
    step::GraphBuilder b_;
    step::Bindings bindings_;
};

} // namespace steprdu::py
