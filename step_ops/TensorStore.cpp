#include "step_ops/TensorStore.h"

#include <cmath>

#include <fmt/format.h>

#include "util/Error.h"

namespace steprdu::step {

std::vector<float> randomNormal(std::size_t n, std::uint64_t seed) {
    std::uint64_t s = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    auto next = [&s]() {
        std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    };
    auto uniform = [&]() { return (static_cast<double>(next() >> 11) + 0.5) / 9007199254740992.0; };
    std::vector<float> out(n);
    for (std::size_t i = 0; i < n; i += 2) {
        double r = std::sqrt(-2.0 * std::log(uniform())), th = 2.0 * M_PI * uniform();
        out[i] = static_cast<float>(r * std::cos(th));
        if (i + 1 < n) out[i + 1] = static_cast<float>(r * std::sin(th));
    }
    return out;
}

TensorStore::TensorStore(const Graph& g, bool functional) : graph_(g), functional_(functional) {
    for (auto& t : g.tensors()) {
        if (!functional) {
            data_.emplace_back();
            continue;
        }
        std::size_t n = static_cast<std::size_t>(t.rows * t.cols);
        if (t.values)
            data_.push_back(*t.values);
        else if (t.init == "randn")
            data_.push_back(randomNormal(n, t.seed));
        else if (t.init == "xavier") { // N(0, 1/rows): keeps products of several matrices near unit scale
            auto v = randomNormal(n, t.seed);
            for (auto& x : v)
                x /= std::sqrt(static_cast<float>(t.rows));
            data_.push_back(std::move(v));
        } else
            data_.emplace_back(n, 0.0f);
    }
}

std::int64_t TensorStore::numTiles(int t, std::int64_t tileRows, std::int64_t tileCols) const {
    const auto& s = graph_.tensor(t);
    return (s.rows / tileRows) * (s.cols / tileCols);
}

Tile TensorStore::readTile(int t, std::int64_t tileIndex, std::int64_t tileRows,
                           std::int64_t tileCols) const {
    const auto& s = graph_.tensor(t);
    Tile tile = Tile::zeros(tileRows, tileCols, functional_);
    tile.readFromMu = true;
    std::int64_t perRow = s.cols / tileCols;
    if (tileIndex < 0 || tileIndex >= numTiles(t, tileRows, tileCols))
        throw BadInput(fmt::format(
            "tensor '{}': read of tile {} outside its {} tiles of {}x{} ({}x{} elements): the stream "
            "reads more tiles than the tensor holds, or an address beyond them; keep addresses below the "
            "tile count or declare the tensor larger",
            s.name, tileIndex, numTiles(t, tileRows, tileCols), tileRows, tileCols, s.rows, s.cols));
    if (!functional_) return tile;
    std::int64_t r0 = (tileIndex / perRow) * tileRows, c0 = (tileIndex % perRow) * tileCols;
    auto out = std::make_shared<std::vector<float>>(tileRows * tileCols);
    const auto& d = data_[t];
    for (std::int64_t r = 0; r < tileRows; ++r)
        for (std::int64_t c = 0; c < tileCols; ++c)
            (*out)[r * tileCols + c] = d[(r0 + r) * s.cols + c0 + c];
    tile.data = out;
    return tile;
}

void TensorStore::writeTile(int t, std::int64_t tileIndex, const Tile& tile) {
    const auto& s = graph_.tensor(t);
    if (tileIndex < 0 || tileIndex >= numTiles(t, tile.rows, tile.cols))
        throw BadInput(fmt::format(
            "tensor '{}': store of tile {} outside its {} tiles of {}x{} ({}x{} elements): the stream "
            "carries more tiles than the tensor holds, or an address beyond them; keep addresses below the "
            "tile count or declare the tensor larger",
            s.name, tileIndex, numTiles(t, tile.rows, tile.cols), tile.rows, tile.cols, s.rows, s.cols));
    if (!functional_ || !tile.data) return;
    std::int64_t perRow = s.cols / tile.cols;
    std::int64_t r0 = (tileIndex / perRow) * tile.rows, c0 = (tileIndex % perRow) * tile.cols;
    auto& d = data_[t];
    for (std::int64_t r = 0; r < tile.rows; ++r)
        for (std::int64_t c = 0; c < tile.cols; ++c)
            d[(r0 + r) * s.cols + c0 + c] = tile.at(r, c);
}

} // namespace steprdu::step
