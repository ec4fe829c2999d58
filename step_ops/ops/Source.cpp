// Source: a stream given in full by the program (selector and metadata streams from a trace, test inputs).
// Tokens in JSON: an integer (u64 scalar), a list of integers (selector), a number list wrapped as
// {"tile": [[...]]} (tile rows), or "S<n>" (stop). Done is implicit.

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "step_ops/ops/OpKinds.h"
#include "util/Json.h"
#include "util/Strings.h"

namespace steprdu::step::ops {
namespace {

// Operators whose stream type is declared by arguments: type (selector | scalar | tile), width or tile
// size, and shape.
class DeclaredStream : public Operator {
  public:
    using Operator::Operator;

  protected:
    static StreamType declaredType(const DeclaredStream& op) {
        if (!op.args().contains("type") || !op.args()["type"].is_string())
            op.fail("argument 'type': " + expectedFound("selector, scalar or tile", op.args().dump()));
        const std::string type = op.args()["type"];
        const auto positive = [&](const char* key) {
            const std::int64_t v = op.intArg(key);
            if (v < 1 || v > INT32_MAX)
                op.fail(fmt::format("argument '{}': {}", key, expectedFound(">= 1", std::to_string(v))));
            return v;
        };
        DataType dt;
        if (type == "selector")
            dt = DataType::selector(static_cast<int>(positive("width")));
        else if (type == "scalar")
            dt = DataType::address();
        else if (type == "tile")
            dt = DataType::makeTile(positive("tile_rows"), positive("tile_cols"));
        else
            op.fail("argument 'type': " + expectedFound("selector, scalar or tile", "'" + type + "'"));
        if (!op.args().contains("shape")) op.fail("missing argument 'shape'");
        try {
            return {dt, Shape::fromJson(op.args()["shape"])};
        } catch (const BadInput& e) {
            op.fail(std::string("argument 'shape': ") + e.what());
        }
    }
};

class Source : public DeclaredStream {
  public:
    using DeclaredStream::DeclaredStream;
    std::string kind() const override { return "Source"; }

    void infer(const Graph&) override {
        expectInputs(0);
        StreamType t = declaredType(*this);
        tokens_ = parseTokens(t.dtype);
        checkStructure(t.shape);
        out_.push_back(t);
    }

    void run(OpIO& io) const override {
        for (const Token& t : tokens_)
            io.push(0, t);
        io.push(0, Token::done());
    }

  private:
    // The tokens must be a stream of the declared shape: downstream operators size tensors, buffers and
    // their own outputs from it. A static shape fixes every token; otherwise stops stay within the rank and
    // a non-empty stream of rank >= 1 ends with the stop that closes its outermost dimension.
    void checkStructure(const Shape& shape) const {
        const int rank = shape.rank();
        std::vector<int> got; // 0 for data, the level for a stop
        for (const Token& t : tokens_)
            got.push_back(t.isData() ? 0 : t.level);
        for (int level : got)
            if (level > rank)
                fail(fmt::format(
                    "stop S{} in a stream of shape {}: {}", level, shape.str(),
                    expectedFound(fmt::format("stop levels 1..{}", rank), fmt::format("S{}", level))));
        const auto data = static_cast<std::int64_t>(std::count(got.begin(), got.end(), 0));
        std::vector<std::int64_t> dims;
        for (const auto& d : shape.dims())
            if (auto v = d.size.constValue(); v && d.kind != DimKind::Ragged) dims.push_back(*v);
        if (dims.size() == static_cast<std::size_t>(shape.numDims())) {
            const std::int64_t total = shape.totalElements().constValue().value_or(-1);
            if (data != total)
                fail(fmt::format("{} data tokens in a stream of shape {}: {}", data, shape.str(),
                                 expectedFound(fmt::format("{} elements", total), std::to_string(data))));
            if (total > 0 && expectedStructure(dims, rank) != got)
                fail(fmt::format("the stop tokens do not follow shape {}; {}", shape.str(),
                                 expectedFound(kinds(expectedStructure(dims, rank)), kinds(got))));
        } else if (rank >= 1 && data > 0 && got.back() != rank) {
            fail(fmt::format("a stream of shape {} must end with S{}; {}", shape.str(), rank,
                             expectedFound(fmt::format("S{}", rank), got.back()
                                                                         ? fmt::format("S{}", got.back())
                                                                         : std::string("a data token"))));
        }
    }
    // "D D S1 D D S2": data and stops, for a message.
    static std::string kinds(const std::vector<int>& tokens) {
        std::string s;
        for (int t : tokens)
            s += (s.empty() ? "" : " ") + (t ? "S" + std::to_string(t) : std::string("D"));
        return s;
    }
    // The token kinds of a static, non-empty stream: as emitNested writes it, closed by S<rank>.
    static std::vector<int> expectedStructure(const std::vector<std::int64_t>& dims, int rank) {
        std::vector<int> out;
        std::vector<std::int64_t> idx(dims.size(), 0);
        for (;;) {
            out.push_back(0);
            int closed = 0, d = static_cast<int>(dims.size()) - 1;
            for (; d >= 0; --d, ++closed) {
                if (++idx[d] < dims[d]) break;
                idx[d] = 0;
            }
            if (d < 0) {
                if (rank > 0) out.push_back(rank);
                return out;
            }
            if (closed > 0) out.push_back(closed);
        }
    }

    std::vector<Token> parseTokens(const DataType& dt) const {
        std::vector<Token> out;
        if (!args().contains("tokens") || !args()["tokens"].is_array())
            fail("argument 'tokens': " +
                 expectedFound("a list", args().value("tokens", nlohmann::json()).dump()));
        for (const auto& j : args()["tokens"]) {
            if (j.is_string()) {
                std::string s = j;
                const auto level = s.size() >= 2 && s[0] == 'S' ? parseInt(s.substr(1)) : std::nullopt;
                if (!level || *level < 1 || *level > 64)
                    fail("token " + expectedFound("S<level> with a level 1..64", "'" + s + "'"));
                out.push_back(Token::stop(static_cast<int>(*level)));
            } else if (dt.kind == DataType::Kind::Selector && j.is_array()) {
                Selector sel{dt.selectorWidth, {}};
                for (const auto& i : j)
                    sel.selected.push_back(static_cast<int>(
                        jsonInteger(i, fmt::format("operator '{}': selector token {}", name(), j.dump()), 0,
                                    dt.selectorWidth - 1)));
                out.push_back(Token::data(sel));
            } else if (dt.isFloatTile() && j.is_object() && j.contains("tile")) {
                out.push_back(Token::data(parseTile(j["tile"], dt.tile)));
            } else if (dt.equals(DataType::address()) && j.is_number_unsigned()) {
                out.push_back(Token::data(Scalar{j.get<std::uint64_t>()}));
            } else if (dt.isFloatTile() && dt.tile.rows.constValue() == 1 && dt.tile.cols.constValue() == 1 &&
                       j.is_number()) { // a 1x1 tile holding that value
                Tile t = Tile::zeros(1, 1, true);
                const_cast<std::vector<float>&>(*t.data)[0] = j.get<float>();
                out.push_back(Token::data(t));
            } else {
                fail(fmt::format("token {}: does not match stream type {}", j.dump(), dt.str()));
            }
        }
        return out;
    }
    // {"tile": [[...], ...]}: rows of numbers, as many and as long as the declared tile.
    Tile parseTile(const nlohmann::json& rows, const TileType& want) const {
        const std::int64_t wr = *want.rows.constValue(), wc = *want.cols.constValue();
        const auto bad = [&](const std::string& found) {
            fail(fmt::format("tile token: {}",
                             expectedFound(fmt::format("{} rows of {} numbers", wr, wc), found)));
        };
        if (!rows.is_array() || static_cast<std::int64_t>(rows.size()) != wr)
            bad(rows.is_array() ? fmt::format("{} rows", rows.size()) : rows.dump());
        Tile t = Tile::zeros(wr, wc, true);
        auto& d = const_cast<std::vector<float>&>(*t.data);
        for (std::int64_t r = 0; r < wr; ++r) {
            const auto& row = rows[static_cast<std::size_t>(r)];
            if (!row.is_array() || static_cast<std::int64_t>(row.size()) != wc)
                bad(fmt::format("row {} of {}", r,
                                row.is_array() ? std::to_string(row.size()) + " numbers" : row.dump()));
            for (std::int64_t c = 0; c < wc; ++c) {
                if (!row[static_cast<std::size_t>(c)].is_number())
                    bad(fmt::format("row {}: {}", r, row.dump()));
                d[static_cast<std::size_t>(r * wc + c)] = row[static_cast<std::size_t>(c)].get<float>();
            }
        }
        return t;
    }

    std::vector<Token> tokens_;
};

// Placeholder: stands for a stream whose producer is built later (a feedback loop). GraphBuilder::connect
// replaces it with the real stream before the graph runs.
class Placeholder : public DeclaredStream {
  public:
    using DeclaredStream::DeclaredStream;
    std::string kind() const override { return "Placeholder"; }
    void infer(const Graph&) override {
        expectInputs(0);
        out_.push_back(declaredType(*this));
    }
    void run(OpIO&) const override { fail("was never connected to the stream it stands for"); }
};

class Sink : public Operator {
  public:
    using Operator::Operator;
    std::string kind() const override { return "Sink"; }
    void infer(const Graph&) override { expectInputs(1); }
    void run(OpIO& io) const override {
        while (!io.pop(0).isDone()) {
        }
    }
};

} // namespace

OperatorKind kindSource() {
    return makeKind<Source>("Source", {"type", "shape", "tokens", "width", "tile_rows", "tile_cols"});
}
OperatorKind kindSink() {
    return makeKind<Sink>("Sink", {});
}
OperatorKind kindPlaceholder() {
    return makeKind<Placeholder>("Placeholder", {"type", "shape", "width", "tile_rows", "tile_cols"});
}

} // namespace steprdu::step::ops
