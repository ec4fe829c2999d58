#pragma once
// Symbolic integer expressions for stream shapes and metrics (the role SymPy plays in the STeP frontend).
// Values are exact 64-bit integers; symbols are non-negative integers bound later (e.g. tokens per expert).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace steprdu::step {

using Bindings = std::map<std::string, std::int64_t>;

class Expr {
  public:
    enum class Op { Const, Sym, Add, Mul, CeilDiv, FloorDiv, Max, Step };

    Expr() : Expr(0) {}
    Expr(std::int64_t v); // NOLINT: integers convert implicitly, as in shape lists
    Expr(int v) : Expr(static_cast<std::int64_t>(v)) {}
    static Expr sym(const std::string& name);
    // 1 if e >= 1 else 0: the outer dimension Promote adds (empty streams stay empty).
    static Expr step(const Expr& e);
    static Expr ceilDiv(const Expr& a, const Expr& b);
    static Expr floorDiv(const Expr& a, const Expr& b);
    static Expr max(const Expr& a, const Expr& b);
    // The sum of many terms in one canonicalisation (adding them one by one costs quadratic time).
    static Expr sum(std::vector<Expr> terms);

    Op op() const;
    bool isConst() const { return op() == Op::Const; }
    std::optional<std::int64_t> constValue() const;
    const std::string& symName() const;
    const std::vector<Expr>& args() const;

    // Substitutes bound symbols and simplifies; unbound symbols stay symbolic.
    Expr bind(const Bindings& b) const;
    // The value when every symbol is bound, otherwise nullopt.
    std::optional<std::int64_t> eval(const Bindings& b = {}) const;
    std::set<std::string> symbols() const;

    std::string str() const;
    nlohmann::json toJson() const;
    static Expr fromJson(const nlohmann::json& j); // throws BadInput
    // Structural equality of the simplified forms.
    bool equals(const Expr& o) const { return str() == o.str(); }

    friend Expr operator+(const Expr& a, const Expr& b);
    friend Expr operator-(const Expr& a, const Expr& b);
    friend Expr operator*(const Expr& a, const Expr& b);
    Expr& operator+=(const Expr& o) { return *this = *this + o; }
    Expr& operator*=(const Expr& o) { return *this = *this * o; }

  private:
    struct Node;
    explicit Expr(std::shared_ptr<const Node> n) : n_(std::move(n)) {}
    static Expr make(Op op, std::vector<Expr> args);
    std::shared_ptr<const Node> n_;
};

std::ostream& operator<<(std::ostream& os, const Expr& e);

} // namespace steprdu::step
