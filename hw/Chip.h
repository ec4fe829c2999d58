#pragma once
// The socket, elaborated from a hardware configuration and a placed STeP graph: a PCU or PMU at every grid
// site, the AGCUs, the RDN mesh (or the ideal network), the off-chip tiers (HBM, and DDR if configured), an
// operator process on each operator's host unit, and a TokenChannel with its route for every stream. Module
// names are the hierarchical names of stats, messages and `--set chip.<unit>.<key>`: chip.pcu_r3c7,
// chip.agcu5, chip.rdn.sw_r3c7, chip.hbm (chip.hbm.ch3), chip.ddr, and chip.pcu_r3c7.<operator> for operator
// processes.
#include <map>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>
#include <systemc>

#include "hw/fabric/FabricRoute.h"
#include "hw/fabric/RdnMesh.h"
#include "hw/mem/MemoryMap.h"
#include "hw/mem/OffChipMemory.h"
#include "hw/pnr/Lowering.h"
#include "hw/pnr/Placement.h"
#include "hw/units/Agcu.h"
#include "hw/units/OperatorProcess.h"
#include "hw/units/Pcu.h"
#include "hw/units/Pmu.h"
#include "step_ops/Graph.h"
#include "step_ops/TensorStore.h"

namespace steprdu::hw {

class Chip : public sc_core::sc_module {
  public:
    Chip(sc_core::sc_module_name name, const HwConfig& cfg, const step::Graph& g, const pnr::Placement& p,
         step::TensorStore& store, const pnr::LoweringOptions& streams, bool functional);
    ~Chip() override;

    // Every operator returned and sent everything.
    bool finished() const;
    Cycle finishCycle() const;
    // The unfinished operators (their unit and what they wait for), streams holding tokens, blocked links.
    std::string blockedReport() const;
    void reportStats(StatsRegistry& stats, Cycle elapsed) const;
    // The run's headline numbers: units used, link bytes, stall cycles by cause, off-chip bytes.
    nlohmann::json summary(Cycle elapsed) const;
    // Simulation events: tokens through channels, packet hops, memory requests.
    std::int64_t events() const;
    // Tokens that have entered any stream so far: the watchdog's measure of progress.
    std::int64_t tokensMoved() const;

  private:
    Unit& unitAt(const pnr::Site& s);
    int endpointOf(const pnr::Site& s);
    void buildRoutes(const step::Graph& g, const pnr::Placement& p, const pnr::LoweringOptions& s);

    HwConfig cfg_;
    ChipLayout layout_;
    MemoryMap map_;
    std::vector<std::unique_ptr<OffChipMemory>> tiers_; // by MemoryMap::Tier; null where absent
    std::unique_ptr<RdnMesh> mesh_;
    std::vector<std::unique_ptr<Unit>> sites_; // by row * cols + col
    std::vector<std::unique_ptr<Agcu>> agcus_;
    std::vector<std::unique_ptr<OperatorProcess>> ops_;
    std::vector<std::unique_ptr<TokenChannel>> channels_;
    std::vector<std::unique_ptr<FabricRoute>> routes_;
    std::vector<int> lanes_;     // per channel: its fabric lanes (0: a hop within one unit)
    std::vector<bool> used_;     // per site
    std::vector<bool> agcuUsed_; // per AGCU
    int pcusUsed_ = 0, pmusUsed_ = 0, agcusUsed_ = 0;
};

} // namespace steprdu::hw
