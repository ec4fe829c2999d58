#include "hw/config/HwConfig.h"

#include <algorithm>

#include <numeric>
#include <random>

#include <fmt/format.h>
#include <random>

#include "hw/config/ConfigSchema.h"
#include "hw/mem/dram/ClockRatio.h"
#include "util/Error.h"
#include "util/Strings.h"

namespace steprdu::hw {

const ChoiceTable<Topology>& choices(Topology) {
    static const ChoiceTable<Topology> t{{"mesh", Topology::Mesh}, {"ideal", Topology::Ideal}};
    return t;
}

const ChoiceTable<RoutePolicy>& choices(RoutePolicy) {
    static const ChoiceTable<RoutePolicy> t{
        {"negotiated", RoutePolicy::Negotiated}, {"xy", RoutePolicy::Xy}, {"yx", RoutePolicy::Yx}};
    return t;
}

const ChoiceTable<Placer>& choices(Placer) {
    static const ChoiceTable<Placer> t{{"anneal", Placer::Anneal}, {"constructive", Placer::Constructive}};
    return t;
}

const ChoiceTable<OnOverflow>& choices(OnOverflow) {
    static const ChoiceTable<OnOverflow> t{
        {"error", OnOverflow::Error}, {"shrink", OnOverflow::Shrink}, {"sections", OnOverflow::Sections}};
    return t;
}

const ChoiceTable<RowPolicy>& choices(RowPolicy) {
    static const ChoiceTable<RowPolicy> t{{"open", RowPolicy::Open}, {"closed", RowPolicy::Closed}};
    return t;
}

const ChoiceTable<OffChipLayout>& choices(OffChipLayout) {
    static const ChoiceTable<OffChipLayout> t{{"row_major", OffChipLayout::RowMajor},
                                              {"tiled", OffChipLayout::Tiled},
                                              {"tile_major", OffChipLayout::TileMajor}};
    return t;
}

const ChoiceTable<Tier>& choices(Tier) {
    static const ChoiceTable<Tier> t{{"hbm", Tier::Hbm}, {"ddr", Tier::Ddr}};
    return t;
}

namespace {
// `first`, then every DRAM preset of `family` under its own name.
ChoiceTable<TierDevice> devices(Choice<TierDevice> first, mem::DramFamily family) {
    ChoiceTable<TierDevice> t{std::move(first)};
    for (const auto& c : choices(mem::DramPreset{}))
        if (mem::dramPreset(c.value).family == family) t.push_back({c.name, TierDevice::of(c.value)});
    return t;
}
} // namespace

const ChoiceTable<TierDevice>& hbmDevices() {
    static const ChoiceTable<TierDevice> t =
        devices({"step_node", TierDevice::stepNode()}, mem::DramFamily::Hbm);
    return t;
}

const ChoiceTable<TierDevice>& ddrDevices() {
    static const ChoiceTable<TierDevice> t = devices({"none", TierDevice::none()}, mem::DramFamily::Ddr);
    return t;
}

const ChoiceTable<std::optional<mem::MappingScheme>>& mappingChoices() {
    static const ChoiceTable<std::optional<mem::MappingScheme>> t = [] {
        ChoiceTable<std::optional<mem::MappingScheme>> out{{"preset", std::nullopt}};
        for (const auto& c : choices(mem::MappingScheme{}))
            out.push_back({c.name, c.value});
        return out;
    }();
    return t;
}

double HbmConfig::peakBytesPerCycle() const {
    return static_cast<double>(channels) * request_bytes / init_interval_cycles;
}

HwConfig HwConfig::forUnit(const std::string& unit) const {
    auto it = units.find(unit);
    if (it == units.end()) return *this;
    HwConfig c = *this;
    for (const auto& [path, value] : it->second)
        findConfigKey(path)->set(c, value); // validated when the override was read
    return c;
}

bool operator==(const HwConfig& a, const HwConfig& b) {
    for (const auto& k : configSchema())
        if (k.get(a) != k.get(b)) return false;
    return a.units == b.units;
}

bool operator!=(const HwConfig& a, const HwConfig& b) {
    return !(a == b);
}

std::optional<std::vector<int>> processOrder(const std::string& order, int n) {
    std::vector<int> p(std::max(0, n));
    std::iota(p.begin(), p.end(), 0);
    if (order == "forward") return p;
    if (order == "reverse") {
        std::reverse(p.begin(), p.end());
        return p;
    }
    const std::string prefix = "shuffle:";
    if (order.rfind(prefix, 0) != 0) return std::nullopt;
    const auto seed = parseInt(order.substr(prefix.size()));
    if (!seed || *seed < 0) return std::nullopt;
    // Fisher-Yates on mt19937_64 (fully specified), so a seed gives the same order with every library.
    std::mt19937_64 rng(static_cast<std::uint64_t>(*seed));
    for (int i = n - 1; i > 0; --i)
        std::swap(p[i], p[rng() % static_cast<std::uint64_t>(i + 1)]);
    return p;
}

std::vector<int> creationOrder(const HwConfig& cfg, int n) {
    auto order = processOrder(cfg.sim.process_order, n);
    if (!order)
        throw BadInput(
            fmt::format("sim.process_order: {}", expectedFound("forward, reverse or shuffle:<seed>",
                                                               "'" + cfg.sim.process_order + "'")));
    return *order;
}

mem::DramSpec tierSpec(const HwConfig& cfg, Tier tier) {
    const MemoryConfig& m = cfg.memory;
    const bool hbm = tier == Tier::Hbm;
    mem::DramSpec s = mem::dramPreset((hbm ? m.hbm : m.ddr).dram);
    const int channels = hbm ? m.hbm_channels : m.ddr_channels;
    if (channels > 0) s.channels = channels;
    s.mapping = (hbm ? m.hbm_mapping : m.ddr_mapping).value_or(s.mapping);
    return s;
}

double tierPeakBytesPerCycle(const HwConfig& cfg, Tier tier) {
    const TierDevice& device = tier == Tier::Hbm ? cfg.memory.hbm : cfg.memory.ddr;
    switch (device.model) {
    case TierDevice::Model::None:
        return 0;
    case TierDevice::Model::StepNode:
        return cfg.hbm.peakBytesPerCycle();
    case TierDevice::Model::Dram:
        break;
    }
    const mem::DramSpec spec = tierSpec(cfg, tier);
    const auto clock = mem::ClockRatio::of(cfg.clock_ghz, spec.tCKps);
    return spec.peakBytesPerCycle() * double(clock.num) / double(clock.den);
}

double tierIdleLatencyCycles(const HwConfig& cfg, Tier tier) {
    const TierDevice& device = tier == Tier::Hbm ? cfg.memory.hbm : cfg.memory.ddr;
    switch (device.model) {
    case TierDevice::Model::None:
        return 0;
    case TierDevice::Model::StepNode:
        return cfg.hbm.latency_cycles;
    case TierDevice::Model::Dram:
        break;
    }
    const mem::DramSpec spec = tierSpec(cfg, tier);
    const auto clock = mem::ClockRatio::of(cfg.clock_ghz, spec.tCKps);
    return double(spec.t.nRCD + spec.t.nCL + spec.t.nBL) * double(clock.den) / double(clock.num);
}

double agcuIdleRoundTripCycles(const HwConfig& cfg) {
    return 2.0 * cfg.agcu.tln_latency_cycles + 1 + tierIdleLatencyCycles(cfg, Tier::Hbm);
}

double agcuLinkBytesPerCycle(const HwConfig& cfg) {
    return std::min(double(cfg.rdn.flit_bytes), double(cfg.agcu.bursts_per_cycle) * cfg.agcu.burst_bytes);
}

} // namespace steprdu::hw
