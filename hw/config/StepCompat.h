#pragma once
// Which hardware keys `roofline.step_compat` distorts. The switch keeps quirks of the published STeP
// simulator (docs/roofline.md) so that its figures come out as published; a few of them change what a key
// means, so a sweep of that key measures the quirk rather than the hardware (docs/sweeps.md, "Which
// roofline").
#include <string>
#include <vector>

#include "hw/config/HwConfig.h"

namespace steprdu::hw {

// A key that a step_compat behaviour distorts, and how.
struct StepCompatKey {
    std::string key;    // dotted path, as --set takes it
    std::string reason; // what the quirk does to it, one clause
    // Whether the quirk sits in the published HBM node, which the cycle backend also runs behind its AGCUs
    // (memory.hbm: step_node); otherwise it is the roofline engine's alone.
    bool hbmNode = false;
};
// Every such key, in the order warnings name them.
const std::vector<StepCompatKey>& stepCompatKeys();

// The backends a run or a sweep uses.
struct StepCompatBackends {
    bool roofline = false;
    bool cycle = false;
};

// The warning for a run or sweep on `cfg` whose user set or swept `keys` (each `key`, `key=value` as --set
// takes it, or `hw.key` as a sweep axis names it): empty unless roofline.step_compat is on and some key is
// one that a quirk distorts on the backends used. It names the keys, what each quirk does, and the way out
// (--set roofline.step_compat=false). A user who set roofline.step_compat among the keys chose it: no
// warning.
std::string stepCompatWarning(const std::vector<std::string>& keys, const HwConfig& cfg,
                              StepCompatBackends backends);

} // namespace steprdu::hw
