#pragma once
// A static route on the switch mesh: the hops from (row, col) to (toRow, toCol) along the row first, or along
// the column first. Each hop is the switch it leaves and the direction it takes (0 north, 1 east, 2 south,
// 3 west), the order of RdnMesh's links.
#include <vector>

namespace steprdu::hw {

struct MeshHop {
    int row, col, dir;
};

inline std::vector<MeshHop> meshPath(int row, int col, int toRow, int toCol, bool columnFirst) {
    std::vector<MeshHop> hops;
    auto alongRow = [&] {
        for (; col != toCol; col += toCol > col ? 1 : -1)
            hops.push_back({row, col, toCol > col ? 1 : 3});
    };
    auto alongColumn = [&] {
        for (; row != toRow; row += toRow > row ? 1 : -1)
            hops.push_back({row, col, toRow > row ? 2 : 0});
    };
    if (columnFirst) {
        alongColumn();
        alongRow();
    } else {
        alongRow();
        alongColumn();
    }
    return hops;
}

} // namespace steprdu::hw
