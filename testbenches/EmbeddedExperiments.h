#pragma once
// The experiment definitions of configs/experiments/*.yaml, compiled into the binary so `steprdu experiment`
// works without the source tree. The definition is generated at build time by cmake/EmbedFiles.cmake.
#include <vector>

namespace steprdu::tb {

struct EmbeddedExperiment {
    const char* name; // file name without .yaml
    const char* yaml;
};

// Sorted by name.
const std::vector<EmbeddedExperiment>& embeddedExperiments();

} // namespace steprdu::tb
