#pragma once
// The run directory of `steprdu run --out DIR` and of every sweep point (docs/cli.md): the result, the
// resolved hardware, the graph, the backend's statistics and meta.json (what ran, where, how fast).
#include <string>

#include <nlohmann/json.hpp>

#include "testbenches/Runner.h"

namespace steprdu::tb {

// meta.json: project version and git revision, host, command line, wall seconds, simulated cycles per
// second and exit status.
nlohmann::json runMeta(const std::string& commandLine, double wallSeconds, double simCyclesPerSecond,
                       int exitStatus);

// Writes every file of a finished run into `dir` (created if missing).
void writeRunDirectory(const std::string& dir, const nlohmann::json& result, const RunArtifacts& art,
                       const nlohmann::json& meta);
// A run that stopped with an error: error.json (exit code and message) and meta.json.
void writeRunError(const std::string& dir, int exitCode, const std::string& message,
                   const nlohmann::json& meta);

} // namespace steprdu::tb
