#pragma once
// The one table of hardware configuration keys. Loading, --set overrides, YAML/JSON dumps and the key table
// in docs/config.md are all driven from it, so adding a key is one line in ConfigSchema.cpp.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "hw/config/HwConfig.h"

namespace steprdu::hw {

enum class KeyType { Int, Double, Bool, String };

struct ConfigKey {
    std::string path; // dotted, e.g. "hbm.channels"; top-level keys have no dot
    KeyType type;
    double min; // inclusive; only for Int and Double
    double max;
    std::string doc; // one line, with the unit
    std::function<KeyValue(const HwConfig&)> get;
    std::function<void(HwConfig&, const KeyValue&)> set;
    std::vector<std::string> choices; // the values a string key accepts; empty = any
    // For a string key whose values follow a pattern: whether it accepts the text (then `choices` only
    // describe the pattern).
    std::function<bool(const std::string&)> accepts;

    // "hbm" for "hbm.channels", "" for a top-level key.
    std::string section() const;
    // "channels" for "hbm.channels".
    std::string leaf() const;
    // What a valid value looks like, e.g. "integer in [1, 4096]".
    std::string expected() const;
    // The typed value of `text` if it has the right type and is in range.
    std::optional<KeyValue> parse(const std::string& text) const;
    // `v` as a YAML/Markdown scalar; strings double-quoted, doubles in shortest round-trip form.
    std::string format(const KeyValue& v) const;
};

// Every key, in document order (top-level keys first, then section by section).
const std::vector<ConfigKey>& configSchema();

// The key with this dotted path, or nullptr.
const ConfigKey* findConfigKey(const std::string& path);

// Whether `path` (a key of the schema) shapes place and route: the grid and its units (chip geometry, PCU
// array size, PMU capacity), the network's topology, routing policy and flow tables, and every pnr key.
// The other keys (bandwidths, latencies, buffer sizes, DRAM timing, roofline and simulation switches) can
// change under a fixed placement: a sweep over them shares one (docs/sweeps.md).
bool isStructuralKey(const std::string& path);

// Section names in document order ("pmu", "pcu", ...).
std::vector<std::string> configSections();

// The generated Markdown key table of docs/config.md (key, type, range, default, description).
std::string schemaMarkdown();

} // namespace steprdu::hw
