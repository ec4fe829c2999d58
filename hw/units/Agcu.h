#pragma once
// Address generation and coalescing unit: runs the off-chip operators (and the host streams of Sources)
// placed on it. For each tile an operator reads or writes it generates the tile's row addresses in the
// tensor's row-major layout, coalesces them into burst-aligned bursts, and issues them to memory at up to
// bursts_per_cycle (or the operator's par_dispatch) per cycle, at most max_outstanding in flight per AGCU.
// Responses return out of order; a load's tile leaves, in tile order, once all its bursts are back. Each
// operator may have tiles_in_flight tiles outstanding, so the next tile's requests overlap the last one's
// wait; a tile's place frees when its last response is back, whichever tile is back first. The TLN between
// AGCU and memory adds tln_latency_cycles each way. The memory map routes each tensor's bursts to its tier
// (HBM or DDR). An operator given several AGCUs (a striped stream) runs on the first; each tile's bursts are
// cut into one run of consecutive bursts per AGCU, and each AGCU issues its run through its own window at its
// own issue rate; the tile is back when every run is.
#include <functional>
#include <vector>

#include "hw/mem/MemoryMap.h"
#include "hw/mem/OffChipMemory.h"
#include "hw/sim/Calendar.h"
#include "hw/units/Unit.h"
#include "step_ops/Graph.h"

namespace steprdu::hw {

class Agcu : public Unit {
  public:
    SC_HAS_PROCESS(Agcu);
    // `tiers` by MemoryMap::Tier (mem::makeTiers); nullptr for a tier the chip lacks.
    Agcu(sc_core::sc_module_name name, const HwConfig& cfg, int index,
         const std::vector<std::unique_ptr<OffChipMemory>>& tiers, const step::Graph& graph, MemoryMap& map);

    WorkDone perform(OperatorProcess& op, const step::Work& w) override;
    void offChip(OperatorProcess& op, const step::OffChipAccess& a) override;
    void drain(OperatorProcess& op) override;
    void reportStats(StatsRegistry& stats, Cycle elapsed) const override;

  private:
    // Issues `ranges` to tier `tierIndex` from this AGCU for operator `source`; `done` hears when the last
    // response is back here.
    void issue(int tierIndex, int source, bool write, std::vector<ByteRange> ranges, std::int64_t bytes,
               int par, std::function<void(Cycle)> done);
    struct OpState {
        OperatorProcess* op = nullptr;
        int unanswered = 0;         // tiles whose last response has not been computed yet
        std::vector<Cycle> returns; // when the known ones are back at the AGCU
        sc_core::sc_event known;
        // Tiles not yet back at cycle `t`.
        int inFlight(Cycle t);
        // Blocks until fewer than `limit` tiles are in flight.
        void waitBelow(int limit);
    };
    OpState& state(OperatorProcess& op);
    // Passes on the completions that sim.completion_notice_cycles delays.
    void passOn();

    int index_;
    std::vector<OffChipMemory*> tiers_;
    const step::Graph& graph_;
    MemoryMap& map_; // shared by every AGCU: tile_major layouts are fixed by a tensor's first access
    std::vector<std::unique_ptr<OpState>> ops_;
    sc_core::sc_event noticeDue_;
    Calendar<std::function<void()>> notices_{noticeDue_};
    int nextTicket_ = 0;
    std::int64_t readBursts_ = 0, writeBursts_ = 0, bytes_ = 0;
};

} // namespace steprdu::hw
