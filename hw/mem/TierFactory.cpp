#include "hw/mem/TierFactory.h"

#include <algorithm>

#include <fmt/format.h>

#include "hw/mem/DramTier.h"
#include "hw/mem/StepNodeTier.h"
#include "util/Error.h"

namespace steprdu::hw::mem {

MemorySystemOptions memoryOptions(const HwConfig& cfg, const DramSpec& spec) {
    const MemoryConfig& m = cfg.memory;
    if (m.write_low > m.write_high)
        throw BadInput(fmt::format("memory.write_low: {}",
                                   expectedFound(fmt::format("at most memory.write_high = {}", m.write_high),
                                                 fmt::format("{}", m.write_low))));
    MemorySystemOptions o;
    o.controller.readQueue = m.read_queue;
    o.controller.writeQueue = m.write_queue;
    o.controller.writeHigh = m.write_high;
    o.controller.writeLow = m.write_low;
    o.controller.closedRow = m.row_policy == RowPolicy::Closed;
    o.controller.refresh = m.refresh;
    o.controller.postedWrites = m.posted_writes;
    o.checkTiming = m.check_timing;
    o.clock = ClockRatio::of(cfg.clock_ghz, spec.tCKps);
    return o;
}

namespace {
// Requests reach memory a TLN crossing after the AGCU sends them: the shortest crossing of any AGCU.
Cycle shortestTln(const HwConfig& cfg) {
    Cycle tln = cfg.agcu.tln_latency_cycles;
    for (const auto& [unit, keys] : cfg.units) {
        auto it = keys.find("agcu.tln_latency_cycles");
        if (it != keys.end()) tln = std::min<Cycle>(tln, std::get<std::int64_t>(it->second));
    }
    return tln;
}

std::unique_ptr<OffChipMemory> makeTier(const HwConfig& cfg, Tier tier) {
    const TierDevice& device = tier == Tier::Hbm ? cfg.memory.hbm : cfg.memory.ddr;
    if (device.model == TierDevice::Model::None) return nullptr;
    if (device.model == TierDevice::Model::StepNode)
        return std::make_unique<StepNodeTier>(nameOf(tier).c_str(), cfg);
    DramSpec spec = tierSpec(cfg, tier);
    return std::make_unique<DramTier>(nameOf(tier).c_str(), spec, memoryOptions(cfg, spec),
                                      cfg.memory.fast_path, shortestTln(cfg));
}

} // namespace

std::vector<std::unique_ptr<OffChipMemory>> makeTiers(const HwConfig& cfg) {
    std::vector<std::unique_ptr<OffChipMemory>> tiers(kTiers);
    for (int k : creationOrder(cfg, kTiers)) // sim.process_order: their processes' order
        tiers[k] = makeTier(cfg, static_cast<Tier>(k));
    return tiers;
}

} // namespace steprdu::hw::mem
