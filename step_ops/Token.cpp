#include "step_ops/Token.h"

#include <sstream>
#include <stdexcept>

namespace steprdu::step {

Tile Tile::zeros(std::int64_t rows, std::int64_t cols, bool functional, ElemType e) {
    Tile t{rows, cols, e, rows, nullptr, false};
    if (functional) t.data = std::make_shared<std::vector<float>>(rows * cols, 0.0f);
    return t;
}

namespace {
template <class T> const T& get(const Element& e, const char* what) {
    if (auto p = std::get_if<T>(&e.v)) return *p;
    throw std::logic_error(std::string("stream element is not a ") + what + ": " + e.str());
}
} // namespace

const Tile& Element::tile() const {
    return get<Tile>(*this, "tile");
}
const Selector& Element::selector() const {
    return get<Selector>(*this, "selector");
}
std::uint64_t Element::scalar() const {
    return get<Scalar>(*this, "scalar").value;
}
const BufferRef& Element::buffer() const {
    return get<BufferRef>(*this, "buffer");
}
const TupleValue& Element::tuple() const {
    return get<TupleValue>(*this, "tuple");
}

std::int64_t Element::bytes() const {
    if (auto t = std::get_if<Tile>(&v)) return t->bytes();
    if (auto s = std::get_if<Selector>(&v)) return s->width;
    if (std::holds_alternative<Scalar>(v)) return 8;
    if (auto b = std::get_if<BufferRef>(&v)) return b->bytes;
    if (auto t = std::get_if<TupleValue>(&v)) {
        std::int64_t n = 0;
        for (auto& i : t->items)
            n += i.bytes();
        return n;
    }
    return 0;
}

std::string Element::str() const {
    std::ostringstream os;
    if (auto t = std::get_if<Tile>(&v)) {
        // A 1x1 tile with data prints as its value, which keeps stream examples readable.
        if (t->rows == 1 && t->cols == 1 && t->data)
            os << (*t->data)[0];
        else
            os << "tile" << t->rows << "x" << t->cols;
    } else if (auto s = std::get_if<Selector>(&v)) {
        os << "(";
        for (std::size_t i = 0; i < s->selected.size(); ++i)
            os << (i ? "," : "") << s->selected[i];
        os << ")";
    } else if (auto c = std::get_if<Scalar>(&v)) {
        os << c->value;
    } else if (std::holds_alternative<BufferRef>(v)) {
        os << "buf";
    } else if (auto tu = std::get_if<TupleValue>(&v)) {
        os << "<";
        for (std::size_t i = 0; i < tu->items.size(); ++i)
            os << (i ? "," : "") << tu->items[i].str();
        os << ">";
    } else {
        os << "_";
    }
    return os.str();
}

std::string Token::str() const {
    switch (kind) {
    case Kind::Data:
        return value.str();
    case Kind::Stop:
        return "S" + std::to_string(level);
    case Kind::Done:
        return "D";
    }
    return "?";
}

std::string streamString(const std::vector<Token>& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i)
        out += (i ? ", " : "") + s[i].str();
    return out;
}

} // namespace steprdu::step
