// Source: a stream given in full by the program (selector and metadata streams from a trace, test inputs).
// Tokens in JSON: an integer (u64 scalar), a list of integers (selector), a number list wrapped as
// {"tile": [[...]]} (tile rows), or "S<n>" (stop). Done is implicit.

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
        std::string type = op.args().at("type");
        DataType dt;
        if (type == "selector")
            dt = DataType::selector(static_cast<int>(op.intArg("width")));
        else if (type == "scalar")
            dt = DataType::address();
        else if (type == "tile")
            dt = DataType::makeTile(op.intArg("tile_rows"), op.intArg("tile_cols"));
        else
            op.fail("argument 'type': " + expectedFound("selector, scalar or tile", "'" + type + "'"));
        return {dt, Shape::fromJson(op.args().at("shape"))};
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
        out_.push_back(t);
    }

    void run(OpIO& io) const override {
        for (const Token& t : tokens_)
            io.push(0, t);
        io.push(0, Token::done());
    }

  private:
    std::vector<Token> parseTokens(const DataType& dt) const {
        std::vector<Token> out;
        for (const auto& j : args().at("tokens")) {
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
            } else if (dt.kind == DataType::Kind::Tile && j.is_object() && j.contains("tile")) {
                auto rows = j["tile"].get<std::vector<std::vector<float>>>();
                Tile t = Tile::zeros(static_cast<std::int64_t>(rows.size()),
                                     rows.empty() ? 0 : static_cast<std::int64_t>(rows[0].size()), true);
                auto& d = const_cast<std::vector<float>&>(*t.data);
                for (std::size_t r = 0; r < rows.size(); ++r)
                    for (std::size_t c = 0; c < rows[r].size(); ++c)
                        d[r * rows[0].size() + c] = rows[r][c];
                out.push_back(Token::data(t));
            } else if (dt.equals(DataType::address()) && j.is_number_unsigned()) {
                out.push_back(Token::data(Scalar{j.get<std::uint64_t>()}));
            } else if (dt.isTile() && j.is_number()) { // a 1x1 tile holding that value
                Tile t = Tile::zeros(1, 1, true);
                const_cast<std::vector<float>&>(*t.data)[0] = j.get<float>();
                out.push_back(Token::data(t));
            } else {
                fail(fmt::format("token {}: does not match stream type {}", j.dump(), dt.str()));
            }
        }
        return out;
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
