#include "step_ops/DataType.h"

#include "util/Error.h"

namespace steprdu::step {

int elemBytes(ElemType t) {
    switch (t) {
    case ElemType::F32:
        return 4;
    case ElemType::BF16:
    case ElemType::F16:
        return 2;
    case ElemType::U64:
        return 8;
    case ElemType::Bool:
        return 1;
    }
    return 4;
}

std::string elemName(ElemType t) {
    switch (t) {
    case ElemType::F32:
        return "f32";
    case ElemType::BF16:
        return "bf16";
    case ElemType::F16:
        return "f16";
    case ElemType::U64:
        return "u64";
    case ElemType::Bool:
        return "bool";
    }
    return "?";
}

ElemType parseElemType(const std::string& s) {
    for (auto t : {ElemType::F32, ElemType::BF16, ElemType::F16, ElemType::U64, ElemType::Bool})
        if (elemName(t) == s) return t;
    throw BadInput("element type: " + expectedFound("one of f32, bf16, f16, u64, bool", "'" + s + "'"));
}

std::string TileType::str() const {
    return "Tile<" + elemName(elem) + ", " + rows.str() + "x" + cols.str() + ">";
}

Expr DataType::bytes() const {
    switch (kind) {
    case Kind::Tile:
        return tile.bytes();
    case Kind::Selector:
        return Expr(selectorWidth);
    case Kind::Buffer:
        return bufferShape->totalElements() * tile.bytes();
    case Kind::Tuple: {
        Expr e(0);
        for (auto& i : items)
            e += i.bytes();
        return e;
    }
    }
    return Expr(0);
}

std::string DataType::str() const {
    switch (kind) {
    case Kind::Tile:
        return tile.str();
    case Kind::Selector:
        return "MultiHot<" + std::to_string(selectorWidth) + ">";
    case Kind::Buffer:
        return "Buffer<" + tile.str() + ", " + bufferShape->str() + ">";
    case Kind::Tuple: {
        std::string s = "(";
        for (std::size_t i = 0; i < items.size(); ++i)
            s += (i ? ", " : "") + items[i].str();
        return s + ")";
    }
    }
    return "?";
}

} // namespace steprdu::step
