#include "hw/arch/ChipLayout.h"

#include <fmt/format.h>

#include "util/Error.h"

namespace steprdu::hw {

ChipLayout::ChipLayout(const ChipConfig& c)
    : rows_(c.gridRows()), cols_(c.gridCols()), dieCols_(c.die_tile_cols * c.cols), tileRows_(c.rows),
      tileCols_(c.cols), tilesPerRow_(c.dies * c.die_tile_cols) {
    // Each tile's AGCUs alternate between its top and bottom edge, spread evenly along it (one per quadrant
    // with the default four), each attached to the switch of the edge site it faces.
    int perEdge = (c.agcus_per_tile + 1) / 2;
    for (int t = 0; t < c.tiles(); ++t) {
        int r0 = (t / tilesPerRow_) * tileRows_, c0 = (t % tilesPerRow_) * tileCols_;
        for (int k = 0; k < c.agcus_per_tile; ++k) {
            int j = k / 2;
            int col = c0 + static_cast<int>((2LL * j + 1) * tileCols_ / (2LL * perEdge));
            int row = k % 2 == 0 ? r0 : r0 + tileRows_ - 1;
            agcus_.push_back({static_cast<int>(agcus_.size()), row, col, t});
        }
    }
}

int ChipLayout::tileOf(int row, int col) const {
    return (row / tileRows_) * tilesPerRow_ + col / tileCols_;
}

int ChipLayout::numUnits(UnitKind k) const {
    if (k == UnitKind::Agcu) return static_cast<int>(agcus_.size());
    int pcus = (numSites() + 1) / 2;
    return k == UnitKind::Pcu ? pcus : numSites() - pcus;
}

std::string ChipLayout::switchName(int row, int col) {
    return fmt::format("sw_r{}c{}", row, col);
}

void ChipLayout::validateUnitNames(const HwConfig& cfg) const {
    for (const auto& [unit, keys] : cfg.units) {
        const std::optional<UnitName> u = parseUnitName(unit);
        if (!u) continue; // the loader accepts nothing else
        if (u->kind == UnitKind::Agcu) {
            if (u->index >= static_cast<std::int64_t>(agcus_.size()))
                throw BadInput(fmt::format(
                    "chip.{}: no such unit; {}", unit,
                    expectedFound(fmt::format("agcu0 .. agcu{}", agcus_.size() - 1), "'" + unit + "'")));
            continue;
        }
        const std::int64_t r = u->row, c = u->col;
        if (r >= rows_ || c >= cols_)
            throw BadInput(
                fmt::format("chip.{}: no such unit; {}", unit,
                            expectedFound(fmt::format("a site within the {} x {} grid", rows_, cols_),
                                          fmt::format("row {}, column {}", r, c))));
        std::string kind = kindName(siteKind(static_cast<int>(r), static_cast<int>(c)));
        if (kind != kindName(u->kind))
            throw BadInput(
                fmt::format("chip.{}: no such unit; {} (PCUs sit where row + column is even)", unit,
                            expectedFound(kindName(u->kind), "a " + kind + " at row " + std::to_string(r) +
                                                                 ", column " + std::to_string(c))));
    }
}

} // namespace steprdu::hw
