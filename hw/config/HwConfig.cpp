#include "hw/config/HwConfig.h"

#include "hw/config/ConfigSchema.h"
#include "hw/mem/dram/ClockRatio.h"

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
    static const ChoiceTable<OnOverflow> t{{"error", OnOverflow::Error}, {"shrink", OnOverflow::Shrink}};
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

} // namespace steprdu::hw
