#include "hw/mem/TierFactory.h"

#include <algorithm>

#include <fmt/format.h>

#include "hw/mem/DramTier.h"
#include "hw/mem/MemoryMap.h"
#include "hw/mem/StepNodeTier.h"
#include "util/Error.h"

namespace steprdu::hw::mem {

DramSpec tierSpec(const HwConfig& cfg, const std::string& tier) {
    const MemoryConfig& m = cfg.memory;
    DramSpec s = dramPreset(tier == "hbm" ? m.hbm : m.ddr);
    const int channels = tier == "hbm" ? m.hbm_channels : m.ddr_channels;
    const std::string& mapping = tier == "hbm" ? m.hbm_mapping : m.ddr_mapping;
    if (channels > 0) s.channels = channels;
    if (mapping != "preset") s.mapping = mapping;
    return s;
}

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
    o.controller.closedRow = m.row_policy == "closed";
    o.controller.refresh = m.refresh;
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

std::unique_ptr<OffChipMemory> makeTier(const HwConfig& cfg, const std::string& tier) {
    const std::string& preset = tier == "hbm" ? cfg.memory.hbm : cfg.memory.ddr;
    if (preset == "none") return nullptr;
    if (preset == "step_node") return std::make_unique<StepNodeTier>("hbm", cfg);
    DramSpec spec = tierSpec(cfg, tier);
    return std::make_unique<DramTier>(tier.c_str(), spec, memoryOptions(cfg, spec), cfg.memory.fast_path,
                                      shortestTln(cfg));
}

} // namespace

std::vector<std::unique_ptr<OffChipMemory>> makeTiers(const HwConfig& cfg) {
    std::vector<std::unique_ptr<OffChipMemory>> tiers;
    for (int k = 0; k < MemoryMap::kTiers; ++k)
        tiers.push_back(makeTier(cfg, MemoryMap::tierName(k)));
    return tiers;
}

} // namespace steprdu::hw::mem
