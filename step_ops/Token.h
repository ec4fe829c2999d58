#pragma once
// Run-time stream elements and tokens. A stream is a sequence of data tokens and stop tokens S_N (N >= 1),
// ended by Done. Each rank-r tensor in a stream ends with S_r; where several dimensions end together only the
// highest stop is emitted; a stop right after another stop closes an empty dimension.
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "step_ops/DataType.h"

namespace steprdu::step {

struct Token;

// A tile's data are float32, row-major; absent in timing-only runs.
struct Tile {
    std::int64_t rows = 0, cols = 0;
    ElemType elem = ElemType::F32;
    std::int64_t validRows = 0; // rows that are not padding (RetileStreamify's filter drops the rest)
    std::shared_ptr<const std::vector<float>> data;
    bool readFromMu = false; // the consumer reads it from a memory unit (roofline load cost applies)
    // Columns that hold real values; -1 = all. A transposed Matmul (q K^T) sets it to its key tile's valid
    // rows, so that scores against padding keys are masked (Exp gives 0 there).
    std::int64_t validCols = -1;

    std::int64_t bytes() const { return rows * cols * elemBytes(elem); }
    float at(std::int64_t r, std::int64_t c) const { return (*data)[r * cols + c]; }
    static Tile zeros(std::int64_t rows, std::int64_t cols, bool functional, ElemType e = ElemType::F32);
};

struct Selector {
    int width = 0;
    std::vector<int> selected; // ascending target indices
};

struct Scalar {
    std::uint64_t value = 0;
};

struct BufferRef {
    std::shared_ptr<const std::vector<Token>> tokens; // the buffered tensor, inner stops included
    std::int64_t bytes = 0;
};

struct Element;
struct TupleValue {
    std::vector<Element> items;
};

struct Element {
    std::variant<std::monostate, Tile, Selector, Scalar, BufferRef, TupleValue> v;

    Element() = default;
    Element(Tile t) : v(std::move(t)) {}       // NOLINT
    Element(Selector s) : v(std::move(s)) {}   // NOLINT
    Element(Scalar s) : v(s) {}                // NOLINT
    Element(BufferRef b) : v(std::move(b)) {}  // NOLINT
    Element(TupleValue t) : v(std::move(t)) {} // NOLINT

    const Tile& tile() const;
    const Selector& selector() const;
    std::uint64_t scalar() const;
    const BufferRef& buffer() const;
    const TupleValue& tuple() const;
    std::int64_t bytes() const;
    std::string str() const;
};

struct Token {
    enum class Kind { Data, Stop, Done };
    Kind kind = Kind::Done;
    int level = 0; // stop level N of S_N
    Element value;

    static Token data(Element e) { return Token{Kind::Data, 0, std::move(e)}; }
    static Token stop(int level) { return Token{Kind::Stop, level, {}}; }
    static Token done() { return Token{Kind::Done, 0, {}}; }
    bool isData() const { return kind == Kind::Data; }
    bool isStop() const { return kind == Kind::Stop; }
    bool isDone() const { return kind == Kind::Done; }
    std::string str() const;
};

// "1, 2, S1, 3, S2, D" for debugging and tests; data print with Element::str().
std::string streamString(const std::vector<Token>& s);

} // namespace steprdu::step
