#pragma once
// Where each operator of a STeP graph runs on the chip: the unit hosting its process, the units of its
// virtual unit (a compute group of PCUs, the PMUs of a buffer), and the PMU stage buffers of streams whose
// producer writes its results to memory. Produced by a placer, consumed by the Chip's elaboration.
#include <string>
#include <vector>

#include "hw/ChipLayout.h"

namespace steprdu::hw::pnr {

struct Site {
    UnitKind kind = UnitKind::Pcu;
    int row = -1, col = -1; // a PCU or PMU site
    int agcu = -1;          // an AGCU
    bool operator==(const Site& o) const {
        return kind == o.kind && row == o.row && col == o.col && agcu == o.agcu;
    }
};

struct OpPlacement {
    std::vector<Site> units; // the first hosts the operator's process
    bool folded = false;     // runs on its producer's unit with no hardware of its own
    const Site& host() const { return units.front(); }
};

// The stage buffer on the stream into input `port` of operator `consumer`.
struct StagePlacement {
    int consumer = -1, port = 0;
    std::vector<Site> pmus;
};

struct Placement {
    std::vector<OpPlacement> ops; // by operator index
    std::vector<StagePlacement> stages;
    int pcusUsed = 0, pmusUsed = 0, agcusUsed = 0;
    // The stage of (consumer, port), or nullptr.
    const StagePlacement* stage(int consumer, int port) const;
};

} // namespace steprdu::hw::pnr
