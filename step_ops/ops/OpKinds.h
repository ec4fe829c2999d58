#pragma once
// Each operator file defines its class privately and exposes its registry entry here.
#include "step_ops/Graph.h"
#include "util/Error.h"

namespace steprdu::step::ops {

// clang-format off
#define STEPRDU_OPERATOR_KINDS(X) \
    X(LinearOffChipLoad) \
    X(LinearOffChipStore) \
    X(RandomOffChipLoad) \
    X(RandomOffChipStore) \
    X(Bufferize) \
    X(Streamify) \
    X(Partition) \
    X(Reassemble) \
    X(EagerMerge) \
    X(Parallelize) \
    X(Broadcast) \
    X(Map) \
    X(Accum) \
    X(Scan) \
    X(MapAccum) \
    X(FlatMap) \
    X(Flatten) \
    X(Reshape) \
    X(Promote) \
    X(Expand) \
    X(RepeatStatic) \
    X(Zip) \
    X(Source) \
    X(Sink) \
    X(Placeholder)
// clang-format on

#define STEPRDU_DECLARE_KIND(K) OperatorKind kind##K();
STEPRDU_OPERATOR_KINDS(STEPRDU_DECLARE_KIND)
#undef STEPRDU_DECLARE_KIND

// Registry entry for operator class T with the given accepted argument names.
template <class T> OperatorKind makeKind(const char* kind, std::vector<std::string> args) {
    return {kind, std::move(args),
            [](const std::string& n, const nlohmann::json& a, const std::vector<StreamRef>& in) {
                return std::unique_ptr<Operator>(new T(n, a, in));
            }};
}

// The common element type of streams merged into one (EagerMerge, Reassemble): tiles whose sizes differ
// symbolically (dynamic tiles of different experts) merge into a tile with a fresh dynamic size.
DataType mergedType(const Operator& op, const std::vector<StreamType>& inputs, std::size_t count);

// Copies the head tokens of several lockstep inputs, which must agree on structure (data, same stop, Done).
// Compute operators look first and dequeue after emitting, as the published simulator does, so an input slot
// frees only once the element has been processed.
std::vector<Token> peekLockstep(OpIO& io, const Operator& op, int numInputs);
void popAll(OpIO& io, int numInputs);

// Off-chip operators' transfer arguments: elem_bytes and par_dispatch (requests in flight) must be positive.
void checkTransfer(const Operator& op, std::int64_t elemBytes, std::int64_t parDispatch);

} // namespace steprdu::step::ops

namespace steprdu::step::ops {
// Expand's core, shared with Streamify's reference form: input 0 holds one element per `scope`-level
// sub-tensor of the reference (input 1); each reference data element replays `emit(x)`, which occupies
// `shift` output levels; reference stops pass through shifted by `shift`. The input's stop that ends a
// scope is the reference's, lowered by `inShift`.
void replayAlongRef(OpIO& io, const Operator& op, int scope, int inShift, int shift,
                    const std::function<void(const Element&)>& emit);
} // namespace steprdu::step::ops
