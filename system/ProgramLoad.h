#pragma once
// Program Load on the chip: a kernel's configuration bytes moved from the tier the program lives in
// (launch.program_tier) through the AGCUs the kernel uses, as memory traffic that meets the tier's channels
// and the AGCUs' ports like any other. The configuration enters the fabric at those AGCUs; its spread over
// the switches into each unit is not modelled (it ends in a sink there), so the time is the tier's and the
// AGCUs' part of the load.
#include <cstdint>

#include "system/LaunchModel.h"
#include "testbenches/Testbench.h"

namespace steprdu::sys {

// The loads, one per AGCU the kernel uses (at least one), sharing `bytes` out in 512-byte rows (the last one
// padded; the default launch.*_config_bytes are whole rows).
tb::Workload programLoadWorkload(std::int64_t bytes, int agcus);

} // namespace steprdu::sys
