#include "step_ops/Expr.h"

#include <algorithm>
#include <ostream>
#include <stdexcept>

#include "util/Error.h"

namespace steprdu::step {

struct Expr::Node {
    Op op;
    std::int64_t value = 0;
    std::string name;
    std::vector<Expr> args;
};

namespace {
std::int64_t ceilDivInt(std::int64_t a, std::int64_t b) {
    if (b == 0) throw std::domain_error("ceil-div by zero in shape expression");
    return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}
std::int64_t floorDivInt(std::int64_t a, std::int64_t b) {
    if (b == 0) throw std::domain_error("floor-div by zero in shape expression");
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}
} // namespace

Expr::Expr(std::int64_t v) : n_(std::make_shared<Node>(Node{Op::Const, v, {}, {}})) {}

Expr Expr::sym(const std::string& name) {
    return Expr(std::make_shared<Node>(Node{Op::Sym, 0, name, {}}));
}

Expr::Op Expr::op() const {
    return n_->op;
}

std::optional<std::int64_t> Expr::constValue() const {
    if (n_->op == Op::Const) return n_->value;
    return std::nullopt;
}

const std::string& Expr::symName() const {
    return n_->name;
}
const std::vector<Expr>& Expr::args() const {
    return n_->args;
}

// Canonicalising constructor: folds constants, flattens sums and products, orders terms by their text,
// and collects like terms (c1*x + c2*x = (c1+c2)*x) so equal expressions print equally.
Expr Expr::make(Op op, std::vector<Expr> args) {
    auto node = [](Op o, std::vector<Expr> a) {
        return Expr(std::make_shared<Node>(Node{o, 0, {}, std::move(a)}));
    };
    switch (op) {
    case Op::Add: {
        std::int64_t c = 0;
        std::map<std::string, std::pair<Expr, std::int64_t>> terms; // key: non-constant factor text
        std::vector<Expr> flat;
        for (auto& a : args) {
            if (a.op() == Op::Add)
                flat.insert(flat.end(), a.args().begin(), a.args().end());
            else
                flat.push_back(a);
        }
        for (auto& a : flat) {
            if (auto v = a.constValue()) {
                c += *v;
                continue;
            }
            std::int64_t coef = 1;
            Expr rest = a;
            if (a.op() == Op::Mul && a.args().front().isConst()) {
                coef = *a.args().front().constValue();
                std::vector<Expr> others(a.args().begin() + 1, a.args().end());
                rest = others.size() == 1 ? others.front() : node(Op::Mul, others);
            }
            auto key = rest.str();
            auto it = terms.find(key);
            if (it == terms.end())
                terms.emplace(key, std::make_pair(rest, coef));
            else
                it->second.second += coef;
        }
        std::vector<Expr> out;
        for (auto& [k, t] : terms) {
            if (t.second == 0) continue;
            out.push_back(t.second == 1 ? t.first : make(Op::Mul, {Expr(t.second), t.first}));
        }
        if (c != 0 || out.empty()) out.insert(out.begin(), Expr(c));
        if (out.size() == 1) return out.front();
        return node(Op::Add, out);
    }
    case Op::Mul: {
        std::int64_t c = 1;
        std::vector<Expr> flat, out;
        for (auto& a : args) {
            if (a.op() == Op::Mul)
                flat.insert(flat.end(), a.args().begin(), a.args().end());
            else
                flat.push_back(a);
        }
        for (auto& a : flat) {
            if (auto v = a.constValue())
                c *= *v;
            else
                out.push_back(a);
        }
        if (c == 0) return Expr(0);
        // Distribute a constant over a sum so that like terms can meet in the enclosing sum.
        if (out.size() == 1 && out.front().op() == Op::Add && c != 1) {
            std::vector<Expr> terms;
            for (auto& t : out.front().args())
                terms.push_back(make(Op::Mul, {Expr(c), t}));
            return make(Op::Add, terms);
        }
        std::sort(out.begin(), out.end(), [](const Expr& x, const Expr& y) { return x.str() < y.str(); });
        if (c != 1 || out.empty()) out.insert(out.begin(), Expr(c));
        if (out.size() == 1) return out.front();
        return node(Op::Mul, out);
    }
    case Op::CeilDiv:
    case Op::FloorDiv: {
        auto a = args[0].constValue(), b = args[1].constValue();
        if (b && *b == 1) return args[0];
        if (a && b) return Expr(op == Op::CeilDiv ? ceilDivInt(*a, *b) : floorDivInt(*a, *b));
        if (a && *a == 0) return Expr(0);
        return node(op, args);
    }
    case Op::Max: {
        auto a = args[0].constValue(), b = args[1].constValue();
        if (a && b) return Expr(std::max(*a, *b));
        if (args[0].equals(args[1])) return args[0];
        return node(op, args);
    }
    case Op::Step: {
        if (auto a = args[0].constValue()) return Expr(*a >= 1 ? 1 : 0);
        return node(op, args);
    }
    default:
        throw std::logic_error("Expr::make: not a compound op");
    }
}

Expr Expr::step(const Expr& e) {
    return make(Op::Step, {e});
}
Expr Expr::ceilDiv(const Expr& a, const Expr& b) {
    return make(Op::CeilDiv, {a, b});
}
Expr Expr::floorDiv(const Expr& a, const Expr& b) {
    return make(Op::FloorDiv, {a, b});
}
Expr Expr::max(const Expr& a, const Expr& b) {
    return make(Op::Max, {a, b});
}
Expr Expr::sum(std::vector<Expr> terms) {
    return make(Op::Add, std::move(terms));
}

Expr operator+(const Expr& a, const Expr& b) {
    return Expr::make(Expr::Op::Add, {a, b});
}
Expr operator-(const Expr& a, const Expr& b) {
    return Expr::make(Expr::Op::Add, {a, Expr::make(Expr::Op::Mul, {Expr(-1), b})});
}
Expr operator*(const Expr& a, const Expr& b) {
    return Expr::make(Expr::Op::Mul, {a, b});
}

Expr Expr::bind(const Bindings& b) const {
    switch (op()) {
    case Op::Const:
        return *this;
    case Op::Sym: {
        auto it = b.find(symName());
        return it == b.end() ? *this : Expr(it->second);
    }
    default: {
        std::vector<Expr> a;
        for (auto& x : args())
            a.push_back(x.bind(b));
        return make(op(), a);
    }
    }
}

std::optional<std::int64_t> Expr::eval(const Bindings& b) const {
    return bind(b).constValue();
}

std::set<std::string> Expr::symbols() const {
    std::set<std::string> out;
    if (op() == Op::Sym) out.insert(symName());
    for (auto& a : args()) {
        auto s = a.symbols();
        out.insert(s.begin(), s.end());
    }
    return out;
}

std::string Expr::str() const {
    auto joined = [&](const char* sep) {
        std::string s;
        for (std::size_t i = 0; i < args().size(); ++i) {
            if (i) s += sep;
            const Expr& a = args()[i];
            bool paren = a.op() == Op::Add || (a.op() == Op::Mul && op() != Op::Add);
            s += paren ? "(" + a.str() + ")" : a.str();
        }
        return s;
    };
    switch (op()) {
    case Op::Const:
        return std::to_string(n_->value);
    case Op::Sym:
        return symName();
    case Op::Add:
        return joined(" + ");
    case Op::Mul:
        return joined("*");
    case Op::CeilDiv:
        return "ceil(" + args()[0].str() + "/" + args()[1].str() + ")";
    case Op::FloorDiv:
        return "floor(" + args()[0].str() + "/" + args()[1].str() + ")";
    case Op::Max:
        return "max(" + args()[0].str() + ", " + args()[1].str() + ")";
    case Op::Step:
        return "(1 if " + args()[0].str() + " >= 1 else 0)";
    }
    return "?";
}

namespace {
const char* kOpNames[] = {"const", "sym", "add", "mul", "ceildiv", "floordiv", "max", "step"};
}

nlohmann::json Expr::toJson() const {
    if (op() == Op::Const) return n_->value;
    if (op() == Op::Sym) return nlohmann::json{{"sym", symName()}};
    nlohmann::json a = nlohmann::json::array();
    for (auto& x : args())
        a.push_back(x.toJson());
    return nlohmann::json{{"op", kOpNames[static_cast<int>(op())]}, {"args", a}};
}

Expr Expr::fromJson(const nlohmann::json& j) {
    if (j.is_number_integer()) return Expr(j.get<std::int64_t>());
    if (j.is_object() && j.contains("sym") && j["sym"].is_string()) return sym(j["sym"].get<std::string>());
    if (j.is_object() && j.contains("op") && j["op"].is_string() && j.contains("args") &&
        j["args"].is_array()) {
        std::string name = j["op"];
        std::vector<Expr> a;
        for (auto& x : j["args"])
            a.push_back(fromJson(x));
        for (int i = 2; i < 8; ++i)
            if (name == kOpNames[i]) return make(static_cast<Op>(i), a);
    }
    throw steprdu::BadInput("shape expression: " +
                            steprdu::expectedFound("an integer, {sym} or {op, args}", j.dump()));
}

std::ostream& operator<<(std::ostream& os, const Expr& e) {
    return os << e.str();
}

} // namespace steprdu::step
