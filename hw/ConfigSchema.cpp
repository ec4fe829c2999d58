#include "hw/ConfigSchema.h"

#include <algorithm>
#include <type_traits>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "util/Strings.h"

namespace steprdu::hw {

namespace {

struct Range {
    double min, max;
};
// For boolean and string keys, which have no range.
constexpr Range kAny{0, 0};

template <class T> constexpr KeyType typeOf() {
    if constexpr (std::is_same_v<T, bool>)
        return KeyType::Bool;
    else if constexpr (std::is_integral_v<T>)
        return KeyType::Int;
    else if constexpr (std::is_floating_point_v<T>)
        return KeyType::Double;
    else
        return KeyType::String;
}

template <class T> KeyValue toValue(const T& v) {
    if constexpr (typeOf<T>() == KeyType::Int)
        return static_cast<std::int64_t>(v);
    else
        return v;
}

// The value has already been checked against the key's type and range by ConfigKey::parse.
template <class T> T fromValue(const KeyValue& v) {
    if constexpr (typeOf<T>() == KeyType::Int)
        return static_cast<T>(std::get<std::int64_t>(v));
    else
        return std::get<T>(v);
}

template <class T> ConfigKey top(std::string path, T HwConfig::*field, Range r, std::string doc) {
    return {std::move(path),
            typeOf<T>(),
            r.min,
            r.max,
            std::move(doc),
            [field](const HwConfig& c) { return toValue(c.*field); },
            [field](HwConfig& c, const KeyValue& v) { c.*field = fromValue<T>(v); }};
}

template <class S, class T>
ConfigKey key(std::string path, S HwConfig::*section, T S::*field, Range r, std::string doc) {
    return {std::move(path),
            typeOf<T>(),
            r.min,
            r.max,
            std::move(doc),
            [section, field](const HwConfig& c) { return toValue(c.*section.*field); },
            [section, field](HwConfig& c, const KeyValue& v) { c.*section.*field = fromValue<T>(v); }};
}

using C = HwConfig;
constexpr double kMega = 1048576;
constexpr double kBig = 1000000;

std::vector<ConfigKey> buildSchema() {
    // clang-format off
    return {
        top("name", &C::name, kAny, "preset or file name; defaults to the name of the source that is loaded"),
        top("description", &C::description, kAny, "one-line description shown by `steprdu list`"),
        top("clock_ghz", &C::clock_ghz, {0.01, 100}, "core clock, GHz (converts cycles to seconds)"),
        key("pmu.bandwidth_bytes_per_cycle", &C::pmu, &PmuConfig::bandwidth_bytes_per_cycle, {1, kMega}, "PMU bandwidth per direction (STeP PMU_BW), B/cycle"),
        key("pmu.capacity_bytes", &C::pmu, &PmuConfig::capacity_bytes, {1, 1073741824}, "SRAM capacity per PMU, B"),
        key("pmu.banks", &C::pmu, &PmuConfig::banks, {1, 1024}, "SRAM banks per PMU"),
        key("pmu.read_latency_cycles", &C::pmu, &PmuConfig::read_latency_cycles, {0, 1024}, "SRAM read latency, cycles"),
        key("pmu.input_fifo_depth", &C::pmu, &PmuConfig::input_fifo_depth, {1, 65536}, "PMU input FIFO depth, vectors"),
        key("pcu.flops_per_cycle", &C::pcu, &PcuConfig::flops_per_cycle, {1, kMega}, "peak compute per PCU, FLOP/cycle"),
        key("pcu.simd_lanes", &C::pcu, &PcuConfig::simd_lanes, {1, 1024}, "SIMD lanes per PCU, 32-bit lanes"),
        key("pcu.pipeline_latency_cycles", &C::pcu, &PcuConfig::pipeline_latency_cycles, {0, 1024}, "SIMD pipeline latency, cycles"),
        key("pcu.input_fifo_depth", &C::pcu, &PcuConfig::input_fifo_depth, {1, 65536}, "PCU input FIFO depth, vectors"),
        key("hbm.request_bytes", &C::hbm, &HbmConfig::request_bytes, {1, 4096}, "bytes per HBM request (STeP addr_offset), B"),
        key("hbm.channels", &C::hbm, &HbmConfig::channels, {1, 4096}, "independent HBM channels (STeP channel_num)"),
        key("hbm.latency_cycles", &C::hbm, &HbmConfig::latency_cycles, {0, kBig}, "response latency after a channel accepts a request (STeP per_channel_latency), cycles"),
        key("hbm.init_interval_cycles", &C::hbm, &HbmConfig::init_interval_cycles, {1, kBig}, "interval between requests accepted by one channel (STeP per_channel_init_interval), cycles"),
        key("hbm.outstanding_per_channel", &C::hbm, &HbmConfig::outstanding_per_channel, {1, 65536}, "requests in flight per channel (STeP per_channel_outstanding, which has no effect there)"),
        key("hbm.startup_cycles", &C::hbm, &HbmConfig::startup_cycles, {0, kBig}, "extra latency of a channel's first response (STeP per_channel_start_up_time; every request under roofline.step_compat), cycles"),
        key("ddr.channels", &C::ddr, &DdrConfig::channels, {1, 64}, "DDR channels"),
        key("ddr.bandwidth_bytes_per_cycle", &C::ddr, &DdrConfig::bandwidth_bytes_per_cycle, {1, kMega}, "total DDR bandwidth, B/cycle"),
        key("ddr.latency_cycles", &C::ddr, &DdrConfig::latency_cycles, {0, kBig}, "idle DDR latency, cycles"),
        key("rdn.flit_bytes", &C::rdn, &RdnConfig::flit_bytes, {1, 4096}, "vector flit and link width, B"),
        key("rdn.hop_latency_cycles", &C::rdn, &RdnConfig::hop_latency_cycles, {0, 1024}, "latency per hop (switch plus link), cycles"),
        key("rdn.vcs", &C::rdn, &RdnConfig::vcs, {1, 16}, "virtual channels (route classes) per link"),
        key("rdn.vc_buffer_flits", &C::rdn, &RdnConfig::vc_buffer_flits, {1, 1024}, "buffer per virtual channel, flits"),
        key("chip.tiles", &C::chip, &ChipConfig::tiles, {1, 64}, "tiles per socket"),
        key("chip.rows", &C::chip, &ChipConfig::rows, {1, 1024}, "unit rows per tile"),
        key("chip.cols", &C::chip, &ChipConfig::cols, {1, 1024}, "unit columns per tile (PCUs and PMUs in a checkerboard)"),
        key("chip.agcus_per_tile", &C::chip, &ChipConfig::agcus_per_tile, {1, 64}, "address generation and coalescing units (off-chip ports) per tile"),
        key("roofline.step_compat", &C::roofline, &RooflineConfig::step_compat, kAny, "reproduce the published STeP simulator's quirks: HBM start-up on every request, triangular channel offset, DAM credit stamps, default-depth Broadcasts, Reassemble timed by arrival (docs/roofline.md)"),
        key("roofline.channel_depth", &C::roofline, &RooflineConfig::channel_depth, {0, kMega}, "depth of every stream FIFO, elements; 0 = the testbench's own default"),
    };
    // clang-format on
}

std::string formatBound(KeyType t, double v) {
    if (t == KeyType::Int) return std::to_string(static_cast<std::int64_t>(v));
    return fmt::format("{}", v);
}

std::string typeName(KeyType t) {
    switch (t) {
    case KeyType::Int:
        return "integer";
    case KeyType::Double:
        return "number";
    case KeyType::Bool:
        return "boolean";
    case KeyType::String:
        return "string";
    }
    return "";
}

} // namespace

std::string ConfigKey::section() const {
    auto dot = path.find('.');
    return dot == std::string::npos ? "" : path.substr(0, dot);
}

std::string ConfigKey::leaf() const {
    return path.substr(path.find('.') + 1);
}

std::string ConfigKey::expected() const {
    switch (type) {
    case KeyType::Int:
    case KeyType::Double:
        return fmt::format("{} in [{}, {}]", typeName(type), formatBound(type, min), formatBound(type, max));
    case KeyType::Bool:
        return "boolean (true or false)";
    case KeyType::String:
        return "string";
    }
    return "";
}

std::optional<KeyValue> ConfigKey::parse(const std::string& text) const {
    switch (type) {
    case KeyType::Int: {
        auto v = parseInt(text);
        if (!v || *v < min || *v > max) return std::nullopt;
        return static_cast<std::int64_t>(*v);
    }
    case KeyType::Double: {
        auto v = parseDouble(text);
        // Written so that NaN fails the range check too.
        if (!v || !(*v >= min && *v <= max)) return std::nullopt;
        return *v;
    }
    case KeyType::Bool:
        // YAML 1.2 core schema spellings only: 'yes'/'on' are YAML 1.1 traps.
        if (text == "true" || text == "True" || text == "TRUE") return true;
        if (text == "false" || text == "False" || text == "FALSE") return false;
        return std::nullopt;
    case KeyType::String:
        return text;
    }
    return std::nullopt;
}

std::string ConfigKey::format(const KeyValue& v) const {
    switch (type) {
    case KeyType::Int:
        return std::to_string(std::get<std::int64_t>(v));
    case KeyType::Double:
        // Shortest form that reads back to the same double, so dumps round-trip exactly.
        return fmt::format("{}", std::get<double>(v));
    case KeyType::Bool:
        return std::get<bool>(v) ? "true" : "false";
    case KeyType::String: {
        YAML::Emitter out;
        out << YAML::DoubleQuoted << std::get<std::string>(v);
        return out.c_str();
    }
    }
    return "";
}

const std::vector<ConfigKey>& configSchema() {
    static const std::vector<ConfigKey> schema = buildSchema();
    return schema;
}

const ConfigKey* findConfigKey(const std::string& path) {
    for (const auto& k : configSchema())
        if (k.path == path) return &k;
    return nullptr;
}

std::vector<std::string> configSections() {
    std::vector<std::string> out;
    for (const auto& k : configSchema()) {
        auto s = k.section();
        if (!s.empty() && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    }
    return out;
}

std::string schemaMarkdown() {
    const HwConfig defaults;
    std::string out = "| key | type | default | range | description |\n|---|---|---|---|---|\n";
    for (const auto& k : configSchema()) {
        bool ranged = k.type == KeyType::Int || k.type == KeyType::Double;
        std::string range =
            ranged ? fmt::format("[{}, {}]", formatBound(k.type, k.min), formatBound(k.type, k.max)) : "";
        out += fmt::format("| `{}` | {} | `{}` | {} | {} |\n", k.path, typeName(k.type),
                           k.format(k.get(defaults)), range, k.doc);
    }
    return out;
}

} // namespace steprdu::hw
