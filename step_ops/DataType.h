#pragma once
// Static (build-time) element types of STeP streams: tiles, selectors, buffer references, tuples.
#include <memory>
#include <string>
#include <vector>

#include "step_ops/Shape.h"

namespace steprdu::step {

enum class ElemType { F32, BF16, F16, U64, Bool };
int elemBytes(ElemType t);
std::string elemName(ElemType t);
ElemType parseElemType(const std::string& s); // throws BadInput

struct TileType {
    Expr rows = 1, cols = 1;
    ElemType elem = ElemType::F32;
    Expr bytes() const { return rows * cols * Expr(elemBytes(elem)); }
    bool isStatic() const { return rows.isConst() && cols.isConst(); }
    std::string str() const;
};

struct DataType {
    enum class Kind { Tile, Selector, Buffer, Tuple };
    Kind kind = Kind::Tile;
    TileType tile;                            // Tile; for Buffer, the buffered tile
    int selectorWidth = 0;                    // Selector: multi-hot over this many targets
    std::shared_ptr<const Shape> bufferShape; // Buffer: shape of the buffered tensor (in tiles)
    std::vector<DataType> items;              // Tuple

    static DataType makeTile(Expr rows, Expr cols, ElemType e = ElemType::F32) {
        DataType d;
        d.tile = {std::move(rows), std::move(cols), e};
        return d;
    }
    static DataType makeTile(const TileType& t) {
        DataType d;
        d.tile = t;
        return d;
    }
    static DataType address() { return makeTile(1, 1, ElemType::U64); }
    static DataType selector(int n) {
        DataType d;
        d.kind = Kind::Selector;
        d.selectorWidth = n;
        return d;
    }
    static DataType buffer(const TileType& t, const Shape& s) {
        DataType d;
        d.kind = Kind::Buffer;
        d.tile = t;
        d.bufferShape = std::make_shared<Shape>(s);
        return d;
    }
    static DataType tuple(std::vector<DataType> items) {
        DataType d;
        d.kind = Kind::Tuple;
        d.items = std::move(items);
        return d;
    }

    bool isTile() const { return kind == Kind::Tile; }
    // Integer elements (u64 addresses and counts, bool flags) travel as scalars at run time, not as tiles:
    // functions and operators that read tile data must refuse them.
    bool isScalar() const { return isTile() && (tile.elem == ElemType::U64 || tile.elem == ElemType::Bool); }
    bool isFloatTile() const { return isTile() && !isScalar(); }
    // Size of one element in bytes, as the STeP frontend counts it (multi-hot: one byte per target).
    Expr bytes() const;
    std::string str() const;
    bool equals(const DataType& o) const { return str() == o.str(); }
};

struct StreamType {
    DataType dtype;
    Shape shape;
    std::string str() const { return "Strm<" + dtype.str() + ", " + shape.str() + ">"; }
};

} // namespace steprdu::step
