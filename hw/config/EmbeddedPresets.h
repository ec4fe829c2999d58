#pragma once
// The YAML text of configs/*.yaml, compiled into the binary so presets work without the source tree.
// The definition is generated at build time by cmake/EmbedFiles.cmake.
#include <vector>

namespace steprdu::hw {

struct EmbeddedPreset {
    const char* name; // file name without .yaml
    const char* yaml;
};

// Sorted by name.
const std::vector<EmbeddedPreset>& embeddedPresets();

} // namespace steprdu::hw
