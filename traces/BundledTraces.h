#pragma once
// Small synthetic traces shipped in traces/synthetic/ and compiled into the binary, so examples and tests run
// without ../shared and without the source tree. Their parameters live only in BundledTraces.cpp;
// steprdu_gen_traces and the reproducibility test both write them through writeBundledTrace, so the files
// cannot drift from the generators, and a test checks the embedded text equals the shipped files.
//
// A bundled trace is named "bundled:<file name>" (e.g. "bundled:mixtral_b64_seed5.csv") wherever a trace path
// goes: the trace readers take it from the embedded text, through the same validation as a file.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace steprdu::traces {

// The prefix that makes a trace path name a bundled trace.
inline const std::string kBundledPrefix = "bundled:";

// File names of the bundled traces, e.g. "mixtral_b64_seed5.csv".
const std::vector<std::string>& bundledTraceNames();

// "bundled:<name>": the path by which the readers find the bundled trace `name`.
std::string bundledTrace(const std::string& name);

// <name> if `path` is "bundled:<name>", otherwise nothing.
std::optional<std::string> bundledTraceName(const std::string& path);

// The embedded text of the bundled trace `name` (the shipped file's bytes); throws BadInput for an unknown
// name, with the nearest one.
const char* bundledTraceText(const std::string& name);

// Writes the exact bytes the generators give for the bundled trace `name`; throws BadInput for an unknown
// name.
void writeBundledTrace(const std::string& name, std::ostream& out);

} // namespace steprdu::traces
