#pragma once
// The experiment definitions of configs/experiments/*.yaml, compiled into the binary so `steprdu experiment`
// works without the source tree.
#include <vector>

#include "util/EmbeddedFile.h"

namespace steprdu::tb {

// Sorted by name (the file name without .yaml).
const std::vector<EmbeddedFile>& embeddedExperiments();

} // namespace steprdu::tb
