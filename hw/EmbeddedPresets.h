#pragma once
// The YAML text of configs/*.yaml, compiled into the binary so presets work without the source tree.
// The definition is generated at build time by hw/EmbedPresets.cmake.
#include <vector>

namespace steprdu::hw {

struct EmbeddedPreset {
    const char* name; // file name without .yaml
    const char* yaml;
};

// Sorted by name: hardware presets (configs/*.yaml) and experiment definitions (configs/experiments/*.yaml).
const std::vector<EmbeddedPreset>& embeddedPresets();
const std::vector<EmbeddedPreset>& embeddedExperiments();

} // namespace steprdu::hw
