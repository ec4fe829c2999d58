#include "system/LaunchModel.h"

#include <cmath>

#include <fmt/format.h>

#include "util/Error.h"

namespace steprdu::sys {

LaunchModel::LaunchModel(const hw::HwConfig& cfg)
    : cfg_(cfg), bytesPerCycle_(hw::tierPeakBytesPerCycle(cfg, cfg.launch.program_tier)) {
    if (bytesPerCycle_ <= 0)
        throw BadInput(
            fmt::format("launch.program_tier: expected a tier with a device on configuration '{}', "
                        "found '{}', which has none",
                        cfg.name, nameOf(cfg.launch.program_tier)));
}

std::int64_t LaunchModel::programBytes(const KernelFootprint& f) const {
    const auto& l = cfg_.launch;
    return std::int64_t(f.pcus) * l.pcu_config_bytes + std::int64_t(f.pmus) * l.pmu_config_bytes +
           std::int64_t(f.switches) * l.switch_config_bytes + std::int64_t(f.agcus) * l.agcu_config_bytes;
}

std::int64_t LaunchModel::moveCycles(std::int64_t bytes) const {
    return static_cast<std::int64_t>(std::ceil(static_cast<double>(bytes) / bytesPerCycle_ - 1e-9));
}

std::int64_t LaunchModel::programLoadCycles(const KernelFootprint& f, std::int64_t movedIn) const {
    return cfg_.launch.command_cycles + (movedIn >= 0 ? movedIn : moveCycles(programBytes(f)));
}

std::int64_t LaunchModel::argumentLoadCycles(std::int64_t calls) const {
    return cfg_.launch.command_cycles + moveCycles(calls * cfg_.launch.argument_bytes);
}

std::int64_t LaunchModel::hostRoundTripCycles() const {
    return std::llround(cfg_.launch.host_round_trip_us * 1000.0 * cfg_.clock_ghz);
}

} // namespace steprdu::sys
