#pragma once
// Stream shapes: outermost dimension first, as the paper writes [D_N, ..., D_0]. A rank-N stream has N+1
// dims.
#include <string>
#include <vector>

#include "step_ops/Expr.h"

namespace steprdu::step {

enum class DimKind { Static, Dynamic, Ragged };

struct Dim {
    Expr size;
    DimKind kind = DimKind::Static;

    Dim() = default;
    Dim(std::int64_t n) : size(n) {} // NOLINT: static dims read naturally as integers
    Dim(int n) : size(n) {}          // NOLINT
    Dim(Expr e, DimKind k) : size(std::move(e)), kind(k) {}
    static Dim dynamic(const std::string& sym) { return {Expr::sym(sym), DimKind::Dynamic}; }
    static Dim ragged(const std::string& sym) { return {Expr::sym(sym), DimKind::Ragged}; }
    // A dimension computed from others; ragged if any operand is ragged (the absorbing rule is applied by the
    // operators that combine dims), dynamic if symbolic, static otherwise.
    static Dim derived(const Expr& e) { return {e, e.isConst() ? DimKind::Static : DimKind::Dynamic}; }

    bool isStatic() const { return size.isConst(); }
    std::string str() const;
};

class Shape {
  public:
    Shape() = default;
    Shape(std::vector<Dim> dims) : dims_(std::move(dims)) {} // NOLINT
    Shape(std::initializer_list<Dim> dims) : dims_(dims) {}

    int rank() const { return static_cast<int>(dims_.size()) - 1; }
    int numDims() const { return static_cast<int>(dims_.size()); }
    // Dimension by rank: atRank(0) is the innermost.
    const Dim& atRank(int r) const { return dims_.at(dims_.size() - 1 - r); }
    const std::vector<Dim>& dims() const {
        return dims_;
    } // Elements in the stream. A ragged dimension's size counts its elements across every enclosing
      // dimension
    // (the sizes differ per position, so only the total is one number); the dimensions outside it do not
    // multiply it again.
    Expr totalElements() const;
    // Dims at ranks [0, r) (the innermost r dims), outermost first.
    Shape inner(int r) const;
    // Dims at ranks >= r, outermost first.
    Shape outer(int r) const;
    Shape concat(const Shape& inner) const;
    bool hasRagged() const;

    std::string str() const;
    nlohmann::json toJson() const;
    static Shape fromJson(const nlohmann::json& j);
    bool equals(const Shape& o) const;

  private:
    std::vector<Dim> dims_;
};

} // namespace steprdu::step
