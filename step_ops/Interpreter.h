#pragma once
// The functional interpreter: runs a graph on real values (float32 host math), untimed. It is the golden
// model that every timed executor's results are checked against.
#include <map>
#include <string>
#include <vector>

#include "step_ops/Graph.h"
#include "step_ops/TensorStore.h"

namespace steprdu::step {

struct InterpreterResult {
    std::map<std::string, std::vector<Token>> sinks; // tokens each Sink received (Done included)
    std::int64_t offChipReadBytes = 0, offChipWriteBytes = 0;
    std::int64_t tokensMoved = 0;
    // Each data-dependent dimension a stream's shape names by a symbol: the largest extent it took in this
    // run (the count a binding must give it; buffers are sized for the largest).
    Bindings observedSizes;
};

class Interpreter {
  public:
    // `functional` = false runs the same token flow without data (shapes, counts and traffic only).
    explicit Interpreter(bool functional = true) : functional_(functional) {}
    // Runs to completion; throws NoProgress naming the blocked operators and streams if it deadlocks.
    InterpreterResult run(Graph& g);
    const TensorStore& memory() const { return *store_; }

  private:
    bool functional_;
    std::unique_ptr<TensorStore> store_;
};

} // namespace steprdu::step
