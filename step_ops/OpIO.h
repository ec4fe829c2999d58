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

// What one function application asks of the hardware that runs it: a matrix product [m,k] x [k,n], or
// `elements` element operations of `opsPerElement` operations each (a row reduction sums across columns;
// a copy moves elements; a scalar function is one control operation).
struct ComputeShape {
    enum class Kind { None, Matmul, Elementwise, RowReduction, Copy, Scalar };
    Kind kind = Kind::None;
    std::int64_t m = 0, k = 0, n = 0;
    std::int64_t elements = 0;
    int opsPerElement = 0;
};

// What processing one element costs, described by resource use; each executor's timing policy turns it into
// time (the roofline backend: the published simulator's per-operator rules; the cycle backend: the unit's
// micro-architecture).
struct Work {
    enum class Kind {
        Compute,       // a function application (Map, Accum, Scan, MapAccum)
        MemoryRead,    // reading an element from its memory unit (routing operators, before the switch)
        Route,         // switching one element to an output (Partition, Reassemble)
        Merge,         // one element through EagerMerge
        Repeat,        // one extra copy of RepeatStatic
        BufferElement, // one element into (Bufferize) or out of (Streamify) an on-chip buffer
    };
    Kind kind = Kind::Compute;
    // The kind's name, as timelines label the work.
    static const char* name(Kind k) {
        constexpr const char* names[] = {"compute", "memory read", "route",
                                         "merge",   "repeat",      "buffer element"};
        return names[static_cast<int>(k)];
    }
    std::int64_t loadElems = 0, loadBytes = 0;   // read from a memory unit (inputs with readFromMu)
    std::int64_t storeElems = 0, storeBytes = 0; // written back to a memory unit (write_back_mu)
    std::int64_t flops = 0;
    std::optional<std::int64_t> fixedCycles; // functions with a fixed cost
    std::int64_t computeBw = 0;
    ComputeShape shape; // Compute: the function application
    std::int64_t elementBytes =
        0; // routing, merging, repeating and buffering: the bytes of the element moved
    // Route: the element is sent no earlier than its arrival on this input plus the switch and read cycles
    // (Reassemble); -1 = after the operator's current time.
    int arrivalInput = -1;

    void addLoad(const Tile& t) {
        loadElems += t.rows * t.cols;
        loadBytes += t.bytes();
    }
    void addStore(const Tile& t) {
        storeElems += t.rows * t.cols;
        storeBytes += t.bytes();
    }
};

// One off-chip access of a whole tile. Requests are issued per tile row and 64-byte chunk of it.
struct OffChipAccess {
    int tensor = -1;
    std::int64_t tileIndex = 0;
    std::int64_t rows = 0, cols = 0;
    int elemBytes = 4; // bytes per element as the operator counts them (a load's elem_bytes)
    int parDispatch = 1;
    bool write = false;
    std::int64_t bytes() const { return rows * cols * elemBytes; }
};

class OpIO {
  public:
    virtual ~OpIO() = default;
    // The token `ahead` positions behind the head of input `in` (blocking until it exists).
    virtual const Token& peek(int in, int ahead) = 0;
    const Token& peek(int in) { return peek(in, 0); }
    virtual Token pop(int in) = 0;
    virtual void push(int out, Token t) = 0;
    // Blocks until output `out` can take a data element without waiting (a Broadcast sends to all outputs
    // at once, when every one has room).
    virtual void awaitCapacity(int out) {}
    // Blocks until one of `ins` has a token and returns the input whose token is first (by time, in timed
    // executors); EagerMerge and Reassemble's arrival order.
    virtual int firstAvailable(const std::vector<int>& ins) = 0;
    virtual void work(const Work& w) {}
    virtual void offChip(const OffChipAccess& a) {}
    virtual bool functional() const = 0;
    virtual TensorStore& memory() = 0;
};

} // namespace steprdu::step
