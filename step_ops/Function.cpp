#include "step_ops/Function.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "util/Error.h"
#include "util/Json.h"

namespace steprdu::step {

namespace {

struct FnInfo {
    Function::Kind kind;
    const char* name;
    int arity;
};
const FnInfo kFunctions[] = {
    {Function::Kind::Matmul, "Matmul", 2},
    {Function::Kind::Add, "Add", 2},
    {Function::Kind::Mul, "Mul", 2},
    {Function::Kind::Div, "Div", 2},
    {Function::Kind::Silu, "SiLU", 1},
    {Function::Kind::Exp, "Exp", 1},
    {Function::Kind::RowWiseSum, "RowWiseSum", 1},
    {Function::Kind::SetOffset, "SetOffset", 2},
    {Function::Kind::RowWiseAppend, "RowWiseAppend", 2},
    {Function::Kind::CacheWriteAddrGen, "CacheWriteAddrGen", 2},
    {Function::Kind::RetileRow, "RetileRow", 2},
    {Function::Kind::RetileCol, "RetileCol", 2},
    {Function::Kind::SignalReqAllRead, "SignalReqAllRead", 2},
};

const FnInfo& info(Function::Kind k) {
    for (auto& f : kFunctions)
        if (f.kind == k) return f;
    throw std::logic_error("unknown function kind");
}

// Broadcasting extent of one axis: equal extents, or 1 against anything but an empty axis (0 rows of an Empty
// accumulator): the result has the larger extent, which the empty operand cannot supply.
Expr broadcastDim(const Expr& a, const Expr& b, const std::string& where, const char* axis) {
    if (a.equals(b)) return a;
    if (a.constValue() == 0 || b.constValue() == 0)
        throw BadInput(fmt::format(
            "{}: {}", where,
            expectedFound(fmt::format("broadcast-compatible tile {}", axis),
                          fmt::format("{} vs {} (an empty axis does not broadcast)", a.str(), b.str()))));
    if (a.constValue() == 1) return b;
    if (b.constValue() == 1) return a;
    if (a.isConst() && b.isConst())
        throw BadInput(fmt::format("{}: {}", where,
                                   expectedFound(fmt::format("broadcast-compatible tile {}", axis),
                                                 fmt::format("{} vs {}", a.str(), b.str()))));
    return Expr::max(a, b);
}

Tile newTile(std::int64_t rows, std::int64_t cols, std::int64_t valid, bool functional) {
    Tile t = Tile::zeros(rows, cols, functional);
    t.validRows = valid;
    return t;
}

std::vector<float>& mutableData(Tile& t) {
    return const_cast<std::vector<float>&>(*t.data);
}

// The run-time extents of a broadcasting operand: its extent along one axis is the result's or 1. A symbolic
// tile passes the build-time check, so this is the last guard before reading past the operand's buffer.
void checkBroadcast(const std::string& fn, int operand, const Tile& t, std::int64_t rows, std::int64_t cols) {
    if ((t.rows == rows || t.rows == 1) && (t.cols == cols || t.cols == 1)) return;
    throw BadInput(fmt::format("function {}: operand {} is a {}x{} tile; {}", fn, operand, t.rows, t.cols,
                               expectedFound(fmt::format("{}x{} or 1 along an axis", rows, cols),
                                             fmt::format("{}x{}", t.rows, t.cols))));
}

} // namespace

Function Function::matmul(bool weightTransposed) {
    Function f(Kind::Matmul);
    f.transposed_ = weightTransposed;
    return f;
}

Function Function::cacheWriteAddrGen(std::int64_t offsetPerIdx) {
    Function f(Kind::CacheWriteAddrGen);
    f.offsetPerIdx_ = offsetPerIdx;
    return f;
}

std::string Function::name() const {
    return info(kind_).name;
}
int Function::arity() const {
    return info(kind_).arity;
}

nlohmann::json Function::toJson() const {
    nlohmann::json j{{"fn", name()}};
    if (kind_ == Kind::Matmul && transposed_) j["weight_transposed"] = true;
    if (kind_ == Kind::CacheWriteAddrGen) j["offset_per_idx"] = offsetPerIdx_;
    return j;
}

Function Function::fromJson(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("fn") || !j["fn"].is_string())
        throw BadInput("function: " + expectedFound("an object with a string 'fn'", j.dump()));
    std::string n = j["fn"];
    for (auto& f : kFunctions) {
        if (n != f.name) continue;
        Function out(f.kind);
        for (auto& [k, v] : j.items()) {
            if (k == "fn") continue;
            if (f.kind == Kind::Matmul && k == "weight_transposed" && v.is_boolean())
                out.transposed_ = v.get<bool>();
            else if (f.kind == Kind::CacheWriteAddrGen && k == "offset_per_idx" && v.is_number_integer())
                out.offsetPerIdx_ = v.get<std::int64_t>();
            else
                throw BadInput(fmt::format("function {}: unknown argument '{}'", n, k));
        }
        return out;
    }
    std::vector<std::string> names;
    for (auto& f : kFunctions)
        names.push_back(f.name);
    throw BadInput("function: " +
                   expectedFound("one of " + fmt::format("{}", fmt::join(names, ", ")), "'" + n + "'"));
}

DataType Function::outputType(const std::vector<DataType>& in, const std::string& where) const {
    // Tile operands hold floats; scalar operands (addresses, counts) are integer 1x1 elements.
    auto need = [&](std::size_t i, bool tile) {
        if (i >= in.size() || (tile && !in[i].isFloatTile()))
            throw BadInput(fmt::format("{}: function {} input {}: {}", where, name(), i,
                                       expectedFound("a tile", i < in.size() ? in[i].str() : "nothing")));
        return in[i].tile;
    };
    auto needScalar = [&](std::size_t i) {
        if (i >= in.size() || !in[i].isScalar())
            throw BadInput(fmt::format(
                "{}: function {} input {}: {}", where, name(), i,
                expectedFound("a scalar (u64 address or count)", i < in.size() ? in[i].str() : "nothing")));
    };
    auto sameExtent = [&](const Expr& a, const Expr& b, const char* what) {
        if (a.isConst() && b.isConst() && !a.equals(b))
            throw BadInput(fmt::format("{}: function {} needs {}; {}", where, name(), what,
                                       expectedFound(a.str(), b.str())));
    };
    switch (kind_) {
    case Kind::Matmul: {
        auto a = need(0, true), b = need(1, true);
        Expr k2 = transposed_ ? b.cols : b.rows, n = transposed_ ? b.rows : b.cols;
        if (a.cols.isConst() && k2.isConst() && !a.cols.equals(k2))
            throw BadInput(fmt::format("{}: Matmul inner dimensions differ; {}", where,
                                       expectedFound(a.cols.str(), k2.str())));
        return DataType::makeTile(a.rows, n, ElemType::F32);
    }
    case Kind::Add:
    case Kind::Mul:
    case Kind::Div: {
        auto a = need(0, true), b = need(1, true);
        return DataType::makeTile(broadcastDim(a.rows, b.rows, where, "rows"),
                                  broadcastDim(a.cols, b.cols, where, "cols"), ElemType::F32);
    }
    case Kind::Silu:
    case Kind::Exp:
        return DataType::makeTile(need(0, true).rows, need(0, true).cols, ElemType::F32);
    case Kind::RowWiseSum:
        return DataType::makeTile(need(0, true).rows, 1, ElemType::F32);
    case Kind::SetOffset:
        needScalar(1);
        return DataType::makeTile(need(0, true));
    case Kind::RowWiseAppend: { // one row appended after the tile's valid rows
        auto t = need(0, true), row = need(1, true);
        sameExtent(Expr(1), row.rows, "a one-row input 1");
        sameExtent(t.cols, row.cols, "equal column counts");
        return DataType::makeTile(t);
    }
    case Kind::CacheWriteAddrGen:
        needScalar(0);
        needScalar(1);
        return DataType::address();
    case Kind::SignalReqAllRead: // counts its second input's elements, whatever they are
        needScalar(0);
        if (in.size() < 2)
            throw BadInput(fmt::format("{}: function {} input 1: {}", where, name(),
                                       expectedFound("an element", "nothing")));
        return DataType::address();
    case Kind::RetileRow: {
        auto acc = need(0, true), x = need(1, true);
        if (acc.cols.isConst() && x.cols.isConst() && !acc.cols.equals(x.cols))
            throw BadInput(fmt::format("{}: RetileRow needs equal column counts; {}", where,
                                       expectedFound(acc.cols.str(), x.cols.str())));
        return DataType::makeTile(acc);
    }
    case Kind::RetileCol: { // an accumulator of no rows (Empty) takes any tile
        auto acc = need(0, true), x = need(1, true);
        if (acc.rows.constValue() != 0) sameExtent(acc.rows, x.rows, "equal row counts");
        return DataType::makeTile(acc);
    }
    }
    return {};
}

Expr Function::flops(const std::vector<DataType>& in) const {
    auto elems = [](const DataType& d) { return d.tile.rows * d.tile.cols; };
    switch (kind_) {
    case Kind::Matmul: {
        const auto& a = in.at(0).tile;
        const auto& b = in.at(1).tile;
        return Expr(2) * a.rows * a.cols * (transposed_ ? b.rows : b.cols);
    }
    case Kind::Add:
    case Kind::Mul:
    case Kind::Div: {
        auto out = outputType(in, "function " + name() + " (flops)");
        return elems(out);
    }
    case Kind::Silu:
        return Expr(8) * elems(in.at(0));
    case Kind::Exp:
        return Expr(4) * elems(in.at(0));
    case Kind::RowWiseSum:
        return elems(in.at(0));
    default:
        return Expr(0);
    }
}

std::int64_t Function::flops(const std::vector<Element>& in) const {
    std::vector<DataType> types;
    for (auto& e : in) {
        if (auto t = std::get_if<Tile>(&e.v))
            types.push_back(DataType::makeTile(t->rows, t->cols, t->elem));
        else
            types.push_back(DataType::address());
    }
    return *flops(types).constValue();
}

std::optional<std::int64_t> Function::fixedCycles() const {
    switch (kind_) {
    case Kind::SetOffset:
    case Kind::RowWiseAppend:
    case Kind::CacheWriteAddrGen:
    case Kind::SignalReqAllRead:
        return 1;
    case Kind::RetileRow:
    case Kind::RetileCol:
        return 0;
    default:
        return std::nullopt;
    }
}

ComputeShape Function::computeShape(const std::vector<Element>& in) const {
    using K = ComputeShape::Kind;
    ComputeShape s;
    auto elems = [](const Tile& t) { return t.rows * t.cols; };
    switch (kind_) {
    case Kind::Matmul: {
        const Tile& a = in.at(0).tile();
        const Tile& b = in.at(1).tile();
        s.kind = K::Matmul;
        s.m = a.rows;
        s.k = a.cols;
        s.n = transposed_ ? b.rows : b.cols;
        return s;
    }
    case Kind::Add:
    case Kind::Mul:
    case Kind::Div:
        s.kind = K::Elementwise;
        s.elements = std::max(in.at(0).tile().rows, in.at(1).tile().rows) *
                     std::max(in.at(0).tile().cols, in.at(1).tile().cols);
        s.opsPerElement = 1;
        return s;
    case Kind::Silu:
    case Kind::Exp:
        s.kind = K::Elementwise;
        s.elements = elems(in.at(0).tile());
        s.opsPerElement = kind_ == Kind::Silu ? 8 : 4; // as the FLOP rule counts them
        return s;
    case Kind::RowWiseSum:
        s.kind = K::RowReduction;
        s.elements = elems(in.at(0).tile());
        s.n = in.at(0).tile().cols;
        s.opsPerElement = 1;
        return s;
    case Kind::RetileRow:
    case Kind::RetileCol:
        s.kind = K::Copy;
        s.elements = elems(in.at(1).tile());
        s.opsPerElement = 1;
        return s;
    case Kind::SetOffset:
    case Kind::RowWiseAppend:
    case Kind::CacheWriteAddrGen:
    case Kind::SignalReqAllRead:
        s.kind = K::Scalar;
        return s;
    }
    return s;
}

Element Function::apply(const std::vector<Element>& in, bool functional) const {
    switch (kind_) {
    case Kind::Matmul: {
        const Tile& a = in[0].tile();
        const Tile& b = in[1].tile();
        std::int64_t m = a.rows, k = a.cols, n = transposed_ ? b.rows : b.cols;
        std::int64_t kb = transposed_ ? b.cols : b.rows;
        if (k != kb)
            throw BadInput(fmt::format("function Matmul: inner dimensions of the run-time tiles differ; {}",
                                       expectedFound(std::to_string(k), std::to_string(kb))));
        Tile out = newTile(m, n, a.validRows, functional && a.data && b.data);
        if (transposed_ && b.validRows < b.rows) out.validCols = b.validRows;
        if (out.data) {
            auto& o = mutableData(out);
            for (std::int64_t i = 0; i < m; ++i)
                for (std::int64_t kk = 0; kk < k; ++kk) {
                    float av = a.at(i, kk);
                    for (std::int64_t j = 0; j < n; ++j)
                        o[i * n + j] += av * (transposed_ ? b.at(j, kk) : b.at(kk, j));
                }
        }
        return out;
    }
    case Kind::Add:
    case Kind::Mul:
    case Kind::Div: {
        const Tile& a = in[0].tile();
        const Tile& b = in[1].tile();
        std::int64_t r = std::max(a.rows, b.rows), c = std::max(a.cols, b.cols);
        checkBroadcast(name(), 0, a, r, c);
        checkBroadcast(name(), 1, b, r, c);
        Tile out = newTile(r, c, std::max(a.validRows, b.validRows), functional && a.data && b.data);
        if (out.data) {
            auto& o = mutableData(out);
            for (std::int64_t i = 0; i < r; ++i)
                for (std::int64_t j = 0; j < c; ++j) {
                    float x = a.at(a.rows == 1 ? 0 : i, a.cols == 1 ? 0 : j);
                    float y = b.at(b.rows == 1 ? 0 : i, b.cols == 1 ? 0 : j);
                    o[i * c + j] = kind_ == Kind::Add ? x + y : kind_ == Kind::Mul ? x * y : x / y;
                }
        }
        return out;
    }
    case Kind::Silu:
    case Kind::Exp: {
        const Tile& a = in[0].tile();
        Tile out = newTile(a.rows, a.cols, a.validRows, functional && a.data);
        if (out.data) {
            auto& o = mutableData(out);
            for (std::size_t i = 0; i < o.size(); ++i) {
                float x = (*a.data)[i];
                bool masked = kind_ == Kind::Exp && a.validCols >= 0 &&
                              static_cast<std::int64_t>(i) % a.cols >= a.validCols;
                o[i] = masked ? 0.0f : kind_ == Kind::Exp ? std::exp(x) : x / (1.0f + std::exp(-x));
            }
        }
        return out;
    }
    case Kind::RowWiseSum: {
        const Tile& a = in[0].tile();
        Tile out = newTile(a.rows, 1, a.validRows, functional && a.data);
        if (out.data) {
            auto& o = mutableData(out);
            for (std::int64_t i = 0; i < a.rows; ++i)
                for (std::int64_t j = 0; j < a.cols; ++j)
                    o[i] += a.at(i, j);
        }
        return out;
    }
    case Kind::SetOffset: {
        Tile out = in[0].tile();
        out.validRows = static_cast<std::int64_t>(in[1].scalar());
        return out;
    }
    case Kind::RowWiseAppend: {
        Tile out = in[0].tile();
        const Tile& row = in[1].tile();
        if (out.validRows >= out.rows)
            throw BadInput(fmt::format("function RowWiseAppend: the tile of {} rows is full", out.rows));
        if (row.cols != out.cols)
            throw BadInput(
                fmt::format("function RowWiseAppend: the appended row; {}",
                            expectedFound(fmt::format("{} columns", out.cols), std::to_string(row.cols))));
        if (out.data && row.data) {
            auto copy = std::make_shared<std::vector<float>>(*out.data);
            for (std::int64_t j = 0; j < out.cols; ++j)
                (*copy)[out.validRows * out.cols + j] = row.at(0, j);
            out.data = copy;
        }
        out.validRows += 1;
        return out;
    }
    case Kind::CacheWriteAddrGen: // idx, tile count: the request's last tile (where the new row is appended)
        return Scalar{in[0].scalar() * static_cast<std::uint64_t>(offsetPerIdx_) + in[1].scalar() - 1};
    case Kind::SignalReqAllRead:
        return Scalar{in[0].scalar() + 1};
    case Kind::RetileRow: {
        const Tile& acc = in[0].tile();
        const Tile& x = in[1].tile();
        if (acc.rows > 0 && acc.cols != x.cols)
            throw BadInput(fmt::format("function RetileRow: column counts differ; {}",
                                       expectedFound(std::to_string(acc.cols), std::to_string(x.cols))));
        Tile out = newTile(acc.rows + x.rows, x.cols, acc.validRows + x.validRows,
                           functional && x.data && (acc.rows == 0 || acc.data));
        if (out.data) {
            auto& o = mutableData(out);
            if (acc.rows > 0) std::copy(acc.data->begin(), acc.data->end(), o.begin());
            std::copy(x.data->begin(), x.data->end(), o.begin() + acc.rows * x.cols);
        }
        return out;
    }
    case Kind::RetileCol: {
        // Concatenates columns; an Empty (0-row) accumulator means nothing was collected yet.
        const Tile& acc = in[0].tile();
        const Tile& x = in[1].tile();
        if (acc.rows == 0) return x;
        if (acc.rows != x.rows)
            throw BadInput(fmt::format("function RetileCol: row counts differ; {}",
                                       expectedFound(std::to_string(acc.rows), std::to_string(x.rows))));
        Tile out = newTile(x.rows, acc.cols + x.cols, x.validRows, functional && x.data && acc.data);
        if (out.data) {
            auto& o = mutableData(out);
            for (std::int64_t r = 0; r < x.rows; ++r) {
                for (std::int64_t c = 0; c < acc.cols; ++c)
                    o[r * out.cols + c] = acc.at(r, c);
                for (std::int64_t c = 0; c < x.cols; ++c)
                    o[r * out.cols + acc.cols + c] = x.at(r, c);
            }
        }
        out.readFromMu = x.readFromMu;
        return out;
    }
    }
    return {};
}

InitFn InitFn::fromJson(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("init") || !j["init"].is_string())
        throw BadInput("init function: " + expectedFound("an object with a string 'init'", j.dump()));
    const std::string k = j["init"];
    const auto extent = [&](const char* key) {
        const std::string what = fmt::format("init function {}: {}", k, key);
        if (!j.contains(key)) throw BadInput(what + ": missing");
        return jsonInteger(j[key], what, 0);
    };
    InitFn f;
    if (k == "Zero")
        f = zero(extent("rows"), extent("cols"));
    else if (k == "Empty")
        f = empty(extent("cols"));
    else if (k == "Count")
        f = count();
    else
        throw BadInput("init function: " + expectedFound("Zero, Empty or Count", "'" + k + "'"));
    if (j.contains("elem")) f.elem = parseElemType(j["elem"]);
    // Zero and Empty make tiles of floats, Count a u64 scalar: another element type would declare the
    // accumulator as what it is not at run time.
    if (f.kind != Kind::Count && f.type().isScalar())
        throw BadInput(fmt::format("init function {}: elem: {}", k,
                                   expectedFound("f32, bf16 or f16", elemName(f.elem))));
    if (f.kind == Kind::Count && f.elem != ElemType::U64)
        throw BadInput("init function Count: elem: " + expectedFound("u64", elemName(f.elem)));
    return f;
}

nlohmann::json InitFn::toJson() const {
    const char* names[] = {"Zero", "Empty", "Count"};
    nlohmann::json j{{"init", names[static_cast<int>(kind)]}, {"elem", elemName(elem)}};
    if (kind == Kind::Zero) j["rows"] = *rows.constValue();
    if (kind != Kind::Count) j["cols"] = *cols.constValue();
    return j;
}

DataType InitFn::type() const {
    if (kind == Kind::Count) return DataType::address();
    return DataType::makeTile(rows, cols, elem);
}

Element InitFn::make(bool functional) const {
    if (kind == Kind::Count) return Scalar{0};
    Tile t = Tile::zeros(*rows.constValue(), *cols.constValue(), functional, elem);
    return t;
}

} // namespace steprdu::step
