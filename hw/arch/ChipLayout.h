#pragma once
// Where everything sits on the socket, computed from the configuration alone (no SystemC): the grid of unit
// sites (a PCU/PMU checkerboard), one switch per site, and the AGCUs on the tile edges. Names are the
// hierarchical names shared by stats, logs and `--set chip.<unit>.<key>`.
#include <string>
#include <vector>

#include "hw/config/HwConfig.h"
#include "hw/config/UnitName.h"

namespace steprdu::hw {

struct AgcuSite {
    int index = 0;
    int row = 0, col = 0; // the switch it attaches to
    int tile = 0;
};

class ChipLayout {
  public:
    explicit ChipLayout(const ChipConfig& c);

    int rows() const { return rows_; }
    int cols() const { return cols_; }
    int numSites() const { return rows_ * cols_; }
    // PCUs sit where row + column is even, PMUs elsewhere.
    UnitKind siteKind(int row, int col) const { return (row + col) % 2 == 0 ? UnitKind::Pcu : UnitKind::Pmu; }
    int die(int col) const { return col / dieCols_; }
    int tileOf(int row, int col) const;
    int numUnits(UnitKind k) const;
    const std::vector<AgcuSite>& agcus() const { return agcus_; }

    static std::string switchName(int row, int col); // "sw_r3c7"
    // Checks that every unit named in `cfg.units` exists on this grid with that kind; throws BadInput.
    void validateUnitNames(const HwConfig& cfg) const;

  private:
    int rows_, cols_, dieCols_, tileRows_, tileCols_, tilesPerRow_;
    std::vector<AgcuSite> agcus_;
};

} // namespace steprdu::hw
