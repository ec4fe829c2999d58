#pragma once
// What an operator's stream semantics sees of the executor running it. Operators are written once as
// straight-line code against this interface (blocking peek/pop/push); executors decide when things happen:
// the interpreter untimed, the roofline backend with per-operator clocks, hardware units with SystemC time.
#include <cstdint>
#include <optional>
#include <vector>

#include "step_ops/Token.h"

namespace steprdu::step {

class TensorStore;

// Cost of processing one element, for the executor's timing policy.
struct Work {
    std::int64_t loadBytes = 0; // read from a memory unit (inputs with readFromMu)
    std::int64_t flops = 0;
    std::int64_t storeBytes = 0;             // written back to a memory unit (write_back_mu)
    std::optional<std::int64_t> fixedCycles; // functions with a fixed cost
    std::int64_t computeBw = 0;
};

// One off-chip access of a whole tile: which tensor, which tile, how many bytes.
struct OffChipAccess {
    int tensor = -1;
    std::int64_t tileIndex = 0;
    std::int64_t bytes = 0;
    std::int64_t rowBytes = 0; // bytes per tile row (requests are issued per row and 64 B column chunk)
    std::int64_t rows = 0;
    bool write = false;
};

class OpIO {
  public:
    virtual ~OpIO() = default;
    virtual const Token& peek(int in) = 0;
    virtual Token pop(int in) = 0;
    virtual void push(int out, Token t) = 0;
    // Blocks until one of `ins` has a token and returns the input whose token is first (by time, in timed
    // executors); EagerMerge and Reassemble's arrival order.
    virtual int firstAvailable(const std::vector<int>& ins) = 0;
    virtual void work(const Work& w) {}
    virtual void offChip(const OffChipAccess& a) {}
    virtual bool functional() const = 0;
    virtual TensorStore& memory() = 0;
};

} // namespace steprdu::step
