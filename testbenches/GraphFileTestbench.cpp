#include "testbenches/Testbench.h"

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "util/Error.h"

namespace steprdu::tb {

namespace {

// A graph from a file (graph.json as `run --out` writes it, or a difftest reproducer): any STeP program on
// any backend without writing a testbench. `steprdu run-graph g.json` is `steprdu run graph file=g.json`.
class GraphFileTestbench : public Testbench {
  public:
    std::string name() const override { return "graph"; }
    std::string doc() const override { return "a STeP graph from a JSON file (run-graph)"; }
    std::vector<Knob> knobs() const override;
    Workload build(const Knobs& k, bool functional) const override;
};

} // namespace

std::vector<Knob> GraphFileTestbench::knobs() const {
    return {{"file", "", "the graph's JSON file (format steprdu-graph-1; required)"},
            {"depth", "2", "stream FIFO depth in elements (0: unbounded)"}};
}

Workload GraphFileTestbench::build(const Knobs& k, bool functional) const {
    if (!k.given("file")) throw BadInput("graph: knob 'file' is required: run graph file=<graph.json>");
    Workload w;
    const std::string file = k.str("file");
    w.graph = step::Graph::load(file);
    // Optional: the values of the graph's data-dependent sizes (symbol -> count), for its metrics.
    const auto j = nlohmann::json::parse(std::ifstream(file, std::ios::binary), nullptr, false);
    if (j.is_object() && j.contains("bindings")) {
        for (const auto& [sym, v] : j["bindings"].items()) {
            if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
                throw BadInput(
                    fmt::format("{}: bindings.{}: {}", file, sym, expectedFound("a count >= 0", v.dump())));
            w.bindings[sym] = v.get<std::int64_t>();
        }
    }
    w.channelDepth = k.integer("depth", 0, 1 << 20);
    w.params = {{"file", k.str("file")}, {"depth", w.channelDepth}};
    (void)functional;
    return w;
}

std::unique_ptr<Testbench> makeGraphFileTestbench() {
    return std::make_unique<GraphFileTestbench>();
}

} // namespace steprdu::tb
