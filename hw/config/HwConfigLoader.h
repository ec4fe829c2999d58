#pragma once
// Loading, validating, overriding and dumping hardware configurations (docs/config.md).
// Every error is a steprdu::BadInput whose one-line message names the file (or --set), the key path, and
// what was expected versus found.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/config/HwConfig.h"

namespace steprdu::hw {

// A built-in preset (configs/*.yaml, embedded in the binary) if `presetOrFile` names one, otherwise a YAML
// file. Keys the source does not set keep the HwConfig defaults, or its `base:` preset's values.
HwConfig loadHwConfig(const std::string& presetOrFile);

// One CLI `--set <key.path>=<value>` assignment, validated like a file entry.
void applyOverride(HwConfig& cfg, const std::string& assignment);

// Built-in preset names, sorted.
std::vector<std::string> presetNames();

// The preset's one-line `description`, for `steprdu list`.
std::string presetDescription(const std::string& name);

// The fully resolved configuration, every key, as YAML that loadHwConfig reads back to an equal config.
std::string toYaml(const HwConfig& cfg);

// The same as nested JSON objects, one per section.
nlohmann::json toJson(const HwConfig& cfg);

} // namespace steprdu::hw
