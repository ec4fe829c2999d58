#pragma once
// The YAML text of configs/*.yaml, compiled into the binary so presets work without the source tree.
#include <vector>

#include "util/EmbeddedFile.h"

namespace steprdu::hw {

// Sorted by name (the file name without .yaml).
const std::vector<EmbeddedFile>& embeddedPresets();

} // namespace steprdu::hw
