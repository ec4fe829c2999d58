#pragma once
// The three commands of a kernel launch through the AGCU (SN40L section IV-D): Program Load moves the
// kernel's configuration into every unit it uses, Argument Load its addresses and scalars, Kernel Execute
// starts it. Each costs launch.command_cycles plus the bytes it moves at the bandwidth of the tier they come
// from; none of these values is published (docs/system.md).
#include <cstdint>

#include "hw/config/HwConfig.h"

namespace steprdu::sys {

// The units a placed kernel occupies: what Program Load configures.
struct KernelFootprint {
    int pcus = 0, pmus = 0, agcus = 0;
    int switches = 0; // at the used units' sites
};

class LaunchModel {
  public:
    // Throws BadInput naming launch.program_tier if that tier has no device on `cfg`.
    explicit LaunchModel(const hw::HwConfig& cfg);

    std::int64_t programBytes(const KernelFootprint& f) const;
    // The command and the move of programBytes(f): `movedIn` cycles if the chip simulated it (>= 0), else at
    // the tier's peak.
    std::int64_t programLoadCycles(const KernelFootprint& f, std::int64_t movedIn = -1) const;
    // Argument Load for `calls` calls at once (kernel looping loads every iteration's arguments together).
    std::int64_t argumentLoadCycles(std::int64_t calls = 1) const;
    std::int64_t executeCommandCycles() const { return cfg_.launch.command_cycles; }
    // Software orchestration: the host's round trip per kernel, in cycles of the fabric clock.
    std::int64_t hostRoundTripCycles() const;
    std::int64_t scheduleGapCycles() const { return cfg_.launch.schedule_gap_cycles; }
    double tierBytesPerCycle() const { return bytesPerCycle_; }

  private:
    std::int64_t moveCycles(std::int64_t bytes) const;
    hw::HwConfig cfg_;
    double bytesPerCycle_ = 0;
};

} // namespace steprdu::sys
