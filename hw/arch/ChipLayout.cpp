#include "hw/arch/ChipLayout.h"

#include <regex>

#include <fmt/format.h>

#include "util/Error.h"

namespace steprdu::hw {

std::string kindName(UnitKind k) {
    switch (k) {
    case UnitKind::Pcu:
        return "pcu";
    case UnitKind::Pmu:
        return "pmu";
    case UnitKind::Agcu:
        return "agcu";
    }
    return "";
}

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

std::string ChipLayout::siteName(int row, int col, UnitKind k) {
    return fmt::format("{}_r{}c{}", kindName(k), row, col);
}

std::string ChipLayout::switchName(int row, int col) {
    return fmt::format("sw_r{}c{}", row, col);
}

std::string ChipLayout::agcuName(int index) {
    return fmt::format("agcu{}", index);
}

void ChipLayout::validateUnitNames(const HwConfig& cfg) const {
    static const std::regex site("^(pcu|pmu)_r([0-9]+)c([0-9]+)$"), agcu("^agcu([0-9]+)$");
    for (const auto& [unit, keys] : cfg.units) {
        std::smatch m;
        if (std::regex_match(unit, m, agcu)) {
            long i = std::stol(m[1]);
            if (i >= static_cast<long>(agcus_.size()))
                throw BadInput(fmt::format(
                    "chip.{}: no such unit; {}", unit,
                    expectedFound(fmt::format("agcu0 .. agcu{}", agcus_.size() - 1), "'" + unit + "'")));
            continue;
        }
        if (!std::regex_match(unit, m, site)) continue; // the loader accepts nothing else
        long r = std::stol(m[2]), c = std::stol(m[3]);
        if (r >= rows_ || c >= cols_)
            throw BadInput(
                fmt::format("chip.{}: no such unit; {}", unit,
                            expectedFound(fmt::format("a site within the {} x {} grid", rows_, cols_),
                                          fmt::format("row {}, column {}", r, c))));
        std::string kind = kindName(siteKind(static_cast<int>(r), static_cast<int>(c)));
        if (kind != m[1])
            throw BadInput(
                fmt::format("chip.{}: no such unit; {} (PCUs sit where row + column is even)", unit,
                            expectedFound(m[1].str(), "a " + kind + " at row " + std::to_string(r) +
                                                          ", column " + std::to_string(c))));
    }
}

} // namespace steprdu::hw
