#include "step_ops/Operator.h"

#include <fmt/format.h>

#include "step_ops/Graph.h"
#include "util/Error.h"

namespace steprdu::step {

void Operator::bind(const Graph& g, std::vector<StreamType> in) {
    in_ = std::move(in);
    out_.clear();
    infer(g);
}

Expr Operator::volume() const {
    if (in_.empty()) return out_.empty() ? Expr(1) : out_[0].shape.totalElements();
    Expr v(0);
    for (auto& t : in_)
        v = Expr::max(v, t.shape.totalElements());
    return v;
}

void Operator::fail(const std::string& msg) const {
    throw BadInput(where() + ": " + msg);
}

void Operator::expectInputs(std::size_t n) const {
    if (in_.size() != n)
        fail(expectedFound(fmt::format("{} input stream(s)", n), std::to_string(in_.size())));
}

void Operator::expectTile(int port) const {
    if (!in_.at(port).dtype.isFloatTile())
        fail(fmt::format("input {}: {}", port, expectedFound("a tile stream", in_[port].str())));
}

void Operator::expectRankAtLeast(int port, int rank, const char* what) const {
    if (in_.at(port).shape.rank() < rank)
        fail(fmt::format("input {} ({}): {}", port, what,
                         expectedFound(fmt::format("rank >= {}", rank), in_[port].shape.str())));
}

std::int64_t Operator::intArg(const char* key) const {
    if (!args_.contains(key)) fail(fmt::format("missing argument '{}'", key));
    const auto& v = args_.at(key);
    if (!v.is_number_integer())
        fail(fmt::format("argument '{}': {}", key, expectedFound("an integer", v.dump())));
    return v.get<std::int64_t>();
}

std::int64_t Operator::intArg(const char* key, std::int64_t dflt) const {
    return args_.contains(key) ? intArg(key) : dflt;
}

bool Operator::boolArg(const char* key, bool dflt) const {
    if (!args_.contains(key)) return dflt;
    if (!args_.at(key).is_boolean())
        fail(fmt::format("argument '{}': {}", key, expectedFound("true or false", args_.at(key).dump())));
    return args_.at(key).get<bool>();
}

std::vector<std::int64_t> Operator::intListArg(const char* key) const {
    if (!args_.contains(key)) fail(fmt::format("missing argument '{}'", key));
    const auto& v = args_.at(key);
    std::vector<std::int64_t> out;
    if (!v.is_array())
        fail(fmt::format("argument '{}': {}", key, expectedFound("a list of integers", v.dump())));
    for (auto& x : v) {
        if (!x.is_number_integer())
            fail(fmt::format("argument '{}': {}", key, expectedFound("a list of integers", v.dump())));
        out.push_back(x.get<std::int64_t>());
    }
    return out;
}

void emitNested(OpIO& io, int out, const std::vector<std::int64_t>& dims, int innerLevels,
                const std::function<void(const std::vector<std::int64_t>&)>& emitOne) {
    std::int64_t total = 1;
    for (auto d : dims)
        total *= d;
    std::vector<std::int64_t> idx(dims.size(), 0);
    for (std::int64_t n = 0; n < total; ++n) {
        emitOne(idx);
        if (n + 1 == total) break;
        // Advance the index; each dimension that wraps around closed one more level.
        int closed = 0;
        for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
            if (++idx[d] < dims[d]) break;
            idx[d] = 0;
            ++closed;
        }
        int level = closed + innerLevels;
        if (level > 0) io.push(out, Token::stop(level));
    }
}

void closeExpansion(OpIO& io, int in, int out, int levels, int inputRank) {
    if (inputRank ==
        0) { // a rank-0 stream has no stops: nothing to merge, and no reason to wait for the next token
        if (levels > 0) io.push(out, Token::stop(levels));
        return;
    }
    const Token& t = io.peek(in);
    if (t.isStop()) {
        int k = t.level;
        io.pop(in);
        io.push(out, Token::stop(k + levels));
    } else if (levels > 0) {
        io.push(out, Token::stop(levels));
    }
}

} // namespace steprdu::step
