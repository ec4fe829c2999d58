#pragma once
// A static route on the switch mesh: the hops from (row, col) to (toRow, toCol) along the row first, or along
// the column first. Each hop is the switch it leaves and the direction it takes.
#include <vector>

namespace steprdu::hw {

// Directions out of a switch, in the order of RdnMesh's links and ports.
enum Direction { North = 0, East = 1, South = 2, West = 3 };
constexpr int kDirections = 4;
inline const char* directionName(int dir) {
    static const char* const names[] = {"north", "east", "south", "west"};
    return names[dir];
}

struct MeshHop {
    int row, col, dir;
};

inline std::vector<MeshHop> meshPath(int row, int col, int toRow, int toCol, bool columnFirst) {
    std::vector<MeshHop> hops;
    auto alongRow = [&] {
        for (; col != toCol; col += toCol > col ? 1 : -1)
            hops.push_back({row, col, toCol > col ? East : West});
    };
    auto alongColumn = [&] {
        for (; row != toRow; row += toRow > row ? 1 : -1)
            hops.push_back({row, col, toRow > row ? South : North});
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
