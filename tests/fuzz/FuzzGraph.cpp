// The graph JSON loader (run-graph's input) on arbitrary bytes: a finalized graph or a BadInput.
#include "step_ops/Graph.h"
#include "tests/fuzz/FuzzInput.h"
#include "util/Error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = steprdu::fuzz::writeInput(data, size, ".json");
    try {
        steprdu::step::Graph::load(path);
    } catch (const steprdu::BadInput&) {
    }
    return 0;
}
