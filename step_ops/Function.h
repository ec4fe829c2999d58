#pragma once
// Functions that higher-order operators (Map, Accum, Scan) apply to stream elements. Each knows its output
// type, its FLOP count (the published simulator's rules) and, for functional runs, how to compute values.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "step_ops/DataType.h"
#include "step_ops/OpIO.h"
#include "step_ops/Token.h"

namespace steprdu::step {

class Function {
  public:
    enum class Kind {
        Matmul,
        Add,
        Mul,
        Div,
        Silu,
        Exp,
        RowWiseSum,
        SetOffset,
        RowWiseAppend,
        CacheWriteAddrGen, // map
        RetileRow,
        RetileCol,
        SignalReqAllRead, // accum only
    };

    Function() = default;
    explicit Function(Kind k) : kind_(k) {}
    static Function matmul(bool weightTransposed = false);
    static Function cacheWriteAddrGen(std::int64_t offsetPerIdx);
    static Function fromJson(const nlohmann::json& j); // throws BadInput
    nlohmann::json toJson() const;

    Kind kind() const { return kind_; }
    std::string name() const;
    int arity() const; // inputs of a Map application (Accum functions take accumulator + 1 input)
    // Output type for the given input types; throws BadInput naming `where` on a mismatch.
    DataType outputType(const std::vector<DataType>& in, const std::string& where) const;
    // FLOPs of one application on static or symbolic tiles (step-perf's per-function rules).
    Expr flops(const std::vector<DataType>& in) const;
    std::int64_t flops(const std::vector<Element>& in) const;
    // Functions the simulator charges a fixed cycle count instead of FLOPs/compute_bw.
    std::optional<std::int64_t> fixedCycles() const;
    // The hardware view of one application on these inputs (a matmul's m, k, n; element counts otherwise).
    ComputeShape computeShape(const std::vector<Element>& in) const;
    Element apply(const std::vector<Element>& in, bool functional) const;

  private:
    Kind kind_ = Kind::Add;
    bool transposed_ = false;
    std::int64_t offsetPerIdx_ = 0;
};

// Accumulator initialisers: Zero(rows, cols) or Empty(cols), a tile with no rows that RetileRow grows.
struct InitFn {
    enum class Kind { Zero, Empty, Count } kind = Kind::Zero;
    Expr rows = 1, cols = 1;
    ElemType elem = ElemType::F32;

    static InitFn zero(Expr r, Expr c, ElemType e = ElemType::F32) { return {Kind::Zero, r, c, e}; }
    static InitFn empty(Expr c, ElemType e = ElemType::F32) { return {Kind::Empty, 0, c, e}; }
    static InitFn count() { return {Kind::Count, 1, 1, ElemType::U64}; }
    static InitFn fromJson(const nlohmann::json& j);
    nlohmann::json toJson() const;
    DataType type() const;
    Element make(bool functional) const;
};

} // namespace steprdu::step
