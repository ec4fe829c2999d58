#pragma once
// Where each operator of a STeP graph runs on the chip: the unit hosting its process, the units of its
// virtual unit (a compute group of PCUs, the PMUs of a buffer), and the PMU stage buffers of streams whose
// producer writes its results to memory. Produced by a placer, consumed by the Chip's elaboration.
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/arch/ChipLayout.h"
#include "step_ops/Graph.h"

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
    std::vector<Site> units; // the first hosts the operator's process; a folded operator's are its producer's
    bool folded = false;     // runs on its producer's unit with no hardware of its own
    bool timeShared = false; // shares its PCU with another operator (`shrink`): their work takes turns
    std::vector<int> lanes;  // per output: lane j leaves from units[j % units.size()]
    std::vector<double> elementRates; // per output: elements per cycle the rate model plans
    const Site& host() const { return units.front(); }
};

// The stage buffer on the stream into input `port` of operator `consumer`.
struct StagePlacement {
    int consumer = -1, port = 0;
    std::vector<Site> pmus;
};

// Where a routed leg ends: input `port` of operator `consumer`, directly or at its stage buffer (leg 0), or
// from its stage buffer to the consumer (leg 1), on lane `lane` of the stream.
struct LegKey {
    int consumer = -1, port = 0, leg = 0, lane = 0;
    bool operator<(const LegKey& o) const {
        return std::tie(consumer, port, leg, lane) < std::tie(o.consumer, o.port, o.leg, o.lane);
    }
    bool operator==(const LegKey& o) const {
        return std::tie(consumer, port, leg, lane) == std::tie(o.consumer, o.port, o.leg, o.lane);
    }
};

struct Placement {
    std::vector<OpPlacement> ops; // by operator index
    std::vector<StagePlacement> stages;
    // Routing: the legs that go along the column first (the rest go along the row first); without an
    // entry, the mesh's dimension order.
    std::map<LegKey, bool> columnFirst;
    // The stage of (consumer, port), or nullptr.
    const StagePlacement* stage(int consumer, int port) const;
    // Every unit that hosts an operator or a stage buffer, once each.
    std::vector<Site> unitsUsed() const;
    // Lanes of a stream: output `out` of `op`, or the stream into input `port` of `consumer`.
    int lanes(int op, int out) const;
    int lanesInto(const step::Graph& g, int consumer, int port) const;
    // The unit (an index into ops[op].units) where lane `lane` of a stream leaves its producer (output `out`
    // of `op`) or reaches its consumer (input `port` of `consumer`). An operator's streams take its units in
    // turn, each from where the previous one's lanes ended, so that their lanes land on different units while
    // there are enough.
    int laneSource(int op, int out, int lane) const;
    int laneSink(const step::Graph& g, int consumer, int port, int lane) const;

    // As pnr.json's "placement": everything the chip is elaborated from (units by name, lanes, planned
    // rates, stages, each leg's dimension order), operators by index with their names, so that a run can
    // reuse it (`run --placement`) and a sweep can share it between points.
    nlohmann::json toJson(const step::Graph& g) const;
    // The placement `j` describes, for graph `g` on a chip laid out as `layout`. BadInput naming `where`
    // when it was made for another graph (operator count, names), names a unit the chip does not have or
    // of the wrong kind, or is malformed.
    static Placement fromJson(const nlohmann::json& j, const step::Graph& g, const ChipLayout& layout,
                              const std::string& where);
};

} // namespace steprdu::hw::pnr
