#pragma once
#include "testbenches/Testbench.h"

namespace steprdu::tb {

// A graph from a file (graph.json as `run --out` writes it, or a difftest reproducer): any STeP program on
// any backend without writing a testbench. `steprdu run-graph g.json` is `steprdu run graph file=g.json`.
class GraphFileTestbench : public Testbench {
  public:
    std::string name() const override { return "graph"; }
    std::string doc() const override { return "a STeP graph from a JSON file (run-graph)"; }
    std::vector<Knob> knobs() const override;
    Workload build(const Knobs& k, bool functional) const override;
};

} // namespace steprdu::tb
