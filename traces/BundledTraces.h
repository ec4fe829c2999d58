#pragma once
// Small synthetic traces shipped in traces/synthetic/, so examples and tests run without ../shared.
// Their parameters live only in BundledTraces.cpp; steprdu_gen_traces and the reproducibility test
// both write them through writeBundledTrace, so the files cannot drift from the generators.
#include <ostream>
#include <string>
#include <vector>

namespace steprdu::traces {

// Absolute path of traces/synthetic in the source tree (baked in at build time).
std::string bundledTraceDir();

// File names of the bundled traces, e.g. "mixtral_b64_seed5.csv".
const std::vector<std::string>& bundledTraceNames();

// Writes the exact bytes of the bundled trace `name`; throws BadInput for an unknown name.
void writeBundledTrace(const std::string& name, std::ostream& out);

} // namespace steprdu::traces
