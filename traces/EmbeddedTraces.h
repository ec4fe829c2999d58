#pragma once
// The text of traces/synthetic/*.csv, compiled into the binary so the bundled traces work without the source
// tree. The definition is generated at build time by cmake/EmbedFiles.cmake; read them through
// traces/BundledTraces.h.
#include <vector>

namespace steprdu::traces {

struct EmbeddedTrace {
    const char* name; // file name, e.g. "mixtral_b64_seed5.csv"
    const char* text; // the file's bytes
};

// Sorted by name.
const std::vector<EmbeddedTrace>& embeddedTraces();

} // namespace steprdu::traces
