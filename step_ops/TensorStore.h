#pragma once
// Off-chip tensor values for functional runs: generated from each TensorSpec, read and written by tile.
#include <vector>

#include "step_ops/Graph.h"
#include "step_ops/Token.h"

namespace steprdu::step {

class TensorStore {
  public:
    TensorStore(const Graph& g, bool functional);
    bool functional() const { return functional_; }
    // Tile `tileIndex` in the row-major tiled layout of tensor `t`.
    Tile readTile(int t, std::int64_t tileIndex, std::int64_t tileRows, std::int64_t tileCols) const;
    void writeTile(int t, std::int64_t tileIndex, const Tile& tile);
    const std::vector<float>& values(int t) const { return data_.at(t); }
    const std::vector<float>& values(const std::string& name) const {
        return data_.at(graph_.tensorIndex(name));
    }
    std::int64_t numTiles(int t, std::int64_t tileRows, std::int64_t tileCols) const;

  private:
    const Graph& graph_;
    bool functional_;
    std::vector<std::vector<float>> data_;
};

// Deterministic standard-normal values (splitmix64 + Box-Muller), the same on every platform.
std::vector<float> randomNormal(std::size_t n, std::uint64_t seed);

} // namespace steprdu::step
