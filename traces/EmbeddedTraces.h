#pragma once
// The text of traces/synthetic/*.csv, compiled into the binary so the bundled traces work without the source
// tree; read them through traces/BundledTraces.h.
#include <vector>

#include "util/EmbeddedFile.h"

namespace steprdu::traces {

// Sorted by name (the file name, e.g. "mixtral_b64_seed5.csv").
const std::vector<EmbeddedFile>& embeddedTraces();

} // namespace steprdu::traces
