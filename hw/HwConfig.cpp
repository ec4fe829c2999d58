#include "hw/HwConfig.h"

#include "hw/ConfigSchema.h"

namespace steprdu::hw {

double HbmConfig::peakBytesPerCycle() const {
    return static_cast<double>(channels) * request_bytes / init_interval_cycles;
}

bool operator==(const HwConfig& a, const HwConfig& b) {
    for (const auto& k : configSchema())
        if (k.get(a) != k.get(b)) return false;
    return true;
}

bool operator!=(const HwConfig& a, const HwConfig& b) {
    return !(a == b);
}

} // namespace steprdu::hw
