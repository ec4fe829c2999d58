#include "testbenches/GraphFileTestbench.h"

#include "util/Error.h"

namespace steprdu::tb {

std::vector<Knob> GraphFileTestbench::knobs() const {
    return {{"file", "", "the graph's JSON file (format steprdu-graph-1; required)"},
            {"depth", "2", "stream FIFO depth in elements (0: unbounded)"}};
}

Workload GraphFileTestbench::build(const Knobs& k, bool functional) const {
    if (!k.given("file")) throw BadInput("graph: knob 'file' is required: run graph file=<graph.json>");
    Workload w;
    w.graph = step::Graph::load(k.str("file"));
    w.channelDepth = k.integer("depth", 0, 1 << 20);
    w.params = {{"file", k.str("file")}, {"depth", w.channelDepth}};
    (void)functional;
    return w;
}

} // namespace steprdu::tb
