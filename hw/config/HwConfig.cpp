#include "hw/config/HwConfig.h"

#include "hw/config/ConfigSchema.h"

namespace steprdu::hw {

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

} // namespace steprdu::hw
