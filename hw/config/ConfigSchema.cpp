#include "hw/config/ConfigSchema.h"

#include <algorithm>
#include <set>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>
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
            [field](HwConfig& c, const KeyValue& v) { c.*field = fromValue<T>(v); },
            {},
            {}};
}

template <class S, class T>
ConfigKey key(std::string path, S HwConfig::*section, T S::*field, Range r, std::string doc) {
    return {std::move(path),
            typeOf<T>(),
            r.min,
            r.max,
            std::move(doc),
            [section, field](const HwConfig& c) { return toValue(c.*section.*field); },
            [section, field](HwConfig& c, const KeyValue& v) { c.*section.*field = fromValue<T>(v); },
            {},
            {}};
}

// A string key whose names stand for the values of `table`; the field holds the value.
template <class S, class T>
ConfigKey choice(std::string path, S HwConfig::*section, T S::*field, const ChoiceTable<T>& table,
                 std::string doc) {
    return {std::move(path),
            KeyType::String,
            0,
            0,
            std::move(doc),
            [section, field, &table](const HwConfig& c) {
                return KeyValue(choiceName(table, c.*section.*field));
            },
            [section, field, &table](HwConfig& c, const KeyValue& v) {
                c.*section.*field = *parseChoice(table, std::get<std::string>(v));
            },
            choiceNames(table),
            {}};
}
// The same for an enum with a `choices(E)` table.
template <class S, class E>
ConfigKey choice(std::string path, S HwConfig::*section, E S::*field, std::string doc) {
    return choice(std::move(path), section, field, choices(E{}), std::move(doc));
}

// sim.process_order: forward, reverse or shuffle:<seed>.
ConfigKey processOrderKey() {
    ConfigKey k = key("sim.process_order", &HwConfig::sim, &SimulationConfig::process_order, kAny,
                      "the order in which the chip creates its SystemC processes (operators, memory tiers), "
                      "and with it SystemC's order of same-cycle processes: forward, reverse or "
                      "shuffle:<seed>; cycles and stats do not depend on it (docs/cycle.md)");
    k.choices = {"forward", "reverse", "shuffle:<seed>"};
    k.accepts = [](const std::string& text) { return processOrder(text, 0).has_value(); };
    return k;
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
        key("pmu.bandwidth_bytes_per_cycle", &C::pmu, &PmuConfig::bandwidth_bytes_per_cycle, {1, kMega}, "PMU bandwidth per direction (STeP PMU_BW; on the chip the read and the write port width), B/cycle"),
        key("pmu.capacity_bytes", &C::pmu, &PmuConfig::capacity_bytes, {1, 1073741824}, "SRAM capacity per PMU, B"),
        key("pmu.banks", &C::pmu, &PmuConfig::banks, {1, 1024}, "SRAM banks per PMU (words interleave across banks)"),
        key("pmu.bank_word_bytes", &C::pmu, &PmuConfig::bank_word_bytes, {1, 4096}, "bytes one bank reads or writes per cycle, B"),
        key("pmu.read_latency_cycles", &C::pmu, &PmuConfig::read_latency_cycles, {0, 1024}, "SRAM read latency, cycles"),
        key("pcu.rows", &C::pcu, &PcuConfig::rows, {1, 1024}, "systolic array rows (output tile rows); peak = 2 x rows x cols FLOP/cycle"),
        key("pcu.cols", &C::pcu, &PcuConfig::cols, {1, 1024}, "systolic array columns (output tile columns)"),
        key("pcu.simd_lanes", &C::pcu, &PcuConfig::simd_lanes, {1, 1024}, "SIMD lanes per PCU, 32-bit elements per cycle"),
        key("pcu.simd_stages", &C::pcu, &PcuConfig::simd_stages, {1, 64}, "SIMD pipeline stages: operations per element in one pass"),
        key("pcu.pipeline_latency_cycles", &C::pcu, &PcuConfig::pipeline_latency_cycles, {0, 1024}, "SIMD pipeline latency, cycles"),
        key("agcu.burst_bytes", &C::agcu, &AgcuConfig::burst_bytes, {1, 4096}, "bytes per off-chip burst (coalescing granule), B"),
        key("agcu.max_outstanding", &C::agcu, &AgcuConfig::max_outstanding, {1, 1048576}, "bursts in flight per AGCU (request window)"),
        key("agcu.bursts_per_cycle", &C::agcu, &AgcuConfig::bursts_per_cycle, {1, 1024}, "bursts an AGCU issues per cycle at most (an operator's par_dispatch may be lower)"),
        key("agcu.tln_latency_cycles", &C::agcu, &AgcuConfig::tln_latency_cycles, {0, kBig}, "AGCU to memory controller latency, each way, cycles"),
        key("agcu.tiles_in_flight", &C::agcu, &AgcuConfig::tiles_in_flight, {1, 1024}, "tiles one off-chip operator may have in flight (2 = double buffering)"),
        key("hbm.request_bytes", &C::hbm, &HbmConfig::request_bytes, {1, 4096}, "bytes per HBM request (STeP addr_offset), B"),
        key("hbm.channels", &C::hbm, &HbmConfig::channels, {1, 4096}, "independent HBM channels (STeP channel_num)"),
        key("hbm.latency_cycles", &C::hbm, &HbmConfig::latency_cycles, {0, kBig}, "response latency after a channel accepts a request (STeP per_channel_latency), cycles"),
        key("hbm.init_interval_cycles", &C::hbm, &HbmConfig::init_interval_cycles, {1, kBig}, "interval between requests accepted by one channel (STeP per_channel_init_interval), cycles"),
        key("hbm.outstanding_per_channel", &C::hbm, &HbmConfig::outstanding_per_channel, {1, 65536}, "requests in flight per channel (STeP per_channel_outstanding, which has no effect there)"),
        key("hbm.startup_cycles", &C::hbm, &HbmConfig::startup_cycles, {0, kBig}, "extra latency of a channel's first response (STeP per_channel_start_up_time; every request under roofline.step_compat), cycles"),
        choice("rdn.topology", &C::rdn, &RdnConfig::topology, "mesh (switches with credit flow control) or ideal (a dedicated link per stream, STeP section 4.5)"),
        choice("rdn.routing", &C::rdn, &RdnConfig::routing, "static routes: every one along the row first (xy), along the column first (yx), or either per destination as place-and-route negotiates (negotiated; west-first turn model)"),
        key("rdn.flit_bytes", &C::rdn, &RdnConfig::flit_bytes, {1, 65536}, "vector flit and link width, B"),
        key("rdn.switch_latency_cycles", &C::rdn, &RdnConfig::switch_latency_cycles, {0, 1024}, "switch pipeline (route, arbitrate, traverse), cycles"),
        key("rdn.link_latency_cycles", &C::rdn, &RdnConfig::link_latency_cycles, {1, 1024}, "link between switches, cycles"),
        key("rdn.credit_latency_cycles", &C::rdn, &RdnConfig::credit_latency_cycles, {0, 1024}, "credit return over one link, cycles"),
        key("rdn.vc_buffer_flits", &C::rdn, &RdnConfig::vc_buffer_flits, {1, 1024}, "input buffer per virtual channel, flits"),
        key("rdn.control_hop_cycles", &C::rdn, &RdnConfig::control_hop_cycles, {1, 1024}, "control fabric (stop tokens, end-to-end credits) per hop, cycles"),
        key("rdn.local_hop_cycles", &C::rdn, &RdnConfig::local_hop_cycles, {1, 1024}, "a stream between two operators on one unit, cycles"),
        key("rdn.flow_table_entries", &C::rdn, &RdnConfig::flow_table_entries, {1, kBig}, "static flows one switch's routing table holds"),
        key("rdn.packet_flits", &C::rdn, &RdnConfig::packet_flits, {0, 1 << 30}, "flits per packet at most: a longer message is cut into packets that take turns with other flows' at every switch (0: one packet per message, which holds each link it crosses for the whole message)"),
        key("rdn.multicast_packet_flits", &C::rdn, &RdnConfig::multicast_packet_flits, {0, 1 << 30}, "flits per packet at most on a multicast that forks on the fabric, on both sides of its stage PMUs: a fork couples its branches flit by flit, which the lumped hold of a packet longer than a buffer misses (0: as rdn.packet_flits; rdn.vc_buffer_flits gives the flit-level cycles where it finishes, but its packets take turns with other messages' on a link where the fabric's wormhole would not, which can stop a large graph; docs/cycle.md)"),
        key("rdn.flit_level", &C::rdn, &RdnConfig::flit_level, kAny, "send every flit as its own packet (slow; checks the packet-level model on small cases)"),
        choice("pnr.placer", &C::pnr, &PnrConfig::placer, "anneal (constructive start refined by simulated annealing) or constructive (the start alone)"),
        key("pnr.seed", &C::pnr, &PnrConfig::seed, {0, 2147483647}, "random seed of the annealer (same seed, same placement)"),
        key("pnr.starts", &C::pnr, &PnrConfig::starts, {1, 64}, "annealing runs, from seeds seed, seed + 1, ...; the one with the shortest drain, then whose routes load the busiest link least, is kept (docs/cycle.md)"),
        key("pnr.evaluate", &C::pnr, &PnrConfig::evaluate, {0, 64}, "of the starts, the ones with the best predictions that the cycle backend simulates in full (run, compare, pnr and sweeps' placements), two at a time; the fewest cycles wins, the prediction breaking ties (0 or 1: the prediction alone; docs/cycle.md)"),
        key("pnr.effort", &C::pnr, &PnrConfig::effort, {0.01, 100}, "scales the annealer's moves per temperature"),
        key("pnr.congestion_weight", &C::pnr, &PnrConfig::congestion_weight, {0, 1000}, "weight of estimated link over-subscription against wirelength in the placement cost"),
        key("pnr.route_iterations", &C::pnr, &PnrConfig::route_iterations, {1, 1000}, "negotiated-congestion routing rounds at most"),
        key("pnr.repair", &C::pnr, &PnrConfig::repair, kAny, "after routing, move the PCUs and PMUs at the ends of streams on links loaded 1.5 times their bandwidth or more to nearby sites where their routes load links less (annealed placements; docs/cycle.md)"),
        key("pnr.lane_headroom", &C::pnr, &PnrConfig::lane_headroom, {0.01, 1000}, "a stream gets ceil(headroom x its rate-model bandwidth / flit_bytes) lanes, at most as many as the units at either end (docs/cycle.md)"),
        choice("pnr.on_overflow", &C::pnr, &PnrConfig::on_overflow, "a graph that needs more units than the chip has: error (exit 2 naming the resource), shrink (fewer PCUs for the largest consumers, then operators sharing a producer's PCU) or sections (the cycle backend runs it cut between its parts, one section after another, crossing streams through HBM)"),
        key("chip.dies", &C::chip, &ChipConfig::dies, {1, 16}, "dies per socket, side by side"),
        key("chip.die_tile_rows", &C::chip, &ChipConfig::die_tile_rows, {1, 64}, "tile rows per die"),
        key("chip.die_tile_cols", &C::chip, &ChipConfig::die_tile_cols, {1, 64}, "tile columns per die"),
        key("chip.rows", &C::chip, &ChipConfig::rows, {1, 1024}, "unit rows per tile"),
        key("chip.cols", &C::chip, &ChipConfig::cols, {1, 1024}, "unit columns per tile (PCUs and PMUs in a checkerboard)"),
        key("chip.agcus_per_tile", &C::chip, &ChipConfig::agcus_per_tile, {1, 64}, "address generation and coalescing units (off-chip ports) per tile"),
        key("chip.d2d_latency_cycles", &C::chip, &ChipConfig::d2d_latency_cycles, {0, 1024}, "extra latency of a link that crosses between dies, cycles"),
        choice("memory.hbm", &C::memory, &MemoryConfig::hbm, hbmDevices(), "the HBM tier: the published simulator's node (step_node, configured by the hbm keys) or a DRAM preset (docs/memory.md)"),
        choice("memory.ddr", &C::memory, &MemoryConfig::ddr, ddrDevices(), "the DDR capacity tier: a DRAM preset, or none"),
        key("memory.hbm_channels", &C::memory, &MemoryConfig::hbm_channels, {0, 1024}, "channels of a DRAM HBM tier; 0 = the preset's"),
        key("memory.ddr_channels", &C::memory, &MemoryConfig::ddr_channels, {0, 1024}, "channels of the DDR tier; 0 = the preset's"),
        choice("memory.hbm_mapping", &C::memory, &MemoryConfig::hbm_mapping, mappingChoices(), "address mapping of a DRAM HBM tier, least significant field last; preset = the preset's"),
        choice("memory.ddr_mapping", &C::memory, &MemoryConfig::ddr_mapping, mappingChoices(), "address mapping of the DDR tier; preset = the preset's"),
        choice("memory.row_policy", &C::memory, &MemoryConfig::row_policy, "DRAM row policy: open (close on a conflict) or closed (close once no queued request wants the row)"),
        key("memory.read_queue", &C::memory, &MemoryConfig::read_queue, {1, 4096}, "read queue entries per DRAM channel"),
        key("memory.write_queue", &C::memory, &MemoryConfig::write_queue, {1, 4096}, "write queue entries per DRAM channel"),
        key("memory.write_high", &C::memory, &MemoryConfig::write_high, {0, 1}, "write drain starts above this fraction of the write queue"),
        key("memory.write_low", &C::memory, &MemoryConfig::write_low, {0, 1}, "write drain stops below this fraction of the write queue (once a read waits)"),
        key("memory.refresh", &C::memory, &MemoryConfig::refresh, kAny, "all-bank refresh every tREFI"),
        key("memory.posted_writes", &C::memory, &MemoryConfig::posted_writes, kAny, "a write is acknowledged (its window slot freed, its tile done) once its channel's write queue takes it; false: once its data is written, after the write drain"),
        key("memory.fast_path", &C::memory, &MemoryConfig::fast_path, kAny, "schedule DRAM commands in batches up to the lookahead (false: one SystemC event per command and per 64-byte transaction; same cycles, slower)"),
        key("memory.check_timing", &C::memory, &MemoryConfig::check_timing, kAny, "check every DRAM command against every timing constraint (slower); violations are reported as a stat"),
        choice("memory.layout", &C::memory, &MemoryConfig::layout, "off-chip tensor layout: row_major; tiled in blocks of the PCU's physical tile (pcu.rows x pcu.cols elements, each block contiguous, blocks row-major); or tile_major, in blocks of the tile each tensor is first read or written in (every such tile one contiguous range, as the STeP HDL's tile readers see memory; row-major where that tile does not divide the tensor)"),
        choice("memory.place.weights", &C::memory, &MemoryConfig::place_weights, "tier of the weight tensors"),
        choice("memory.place.activations", &C::memory, &MemoryConfig::place_activations, "tier of activations, inputs and outputs"),
        choice("memory.place.kv_cache", &C::memory, &MemoryConfig::place_kv_cache, "tier of the KV caches"),
        key("roofline.step_compat", &C::roofline, &RooflineConfig::step_compat, kAny, "reproduce the published STeP simulator's quirks: HBM start-up on every request, triangular channel offset, DAM credit stamps, default-depth Broadcasts, Reassemble timed by arrival (docs/roofline.md)"),
        key("roofline.channel_depth", &C::roofline, &RooflineConfig::channel_depth, {0, kMega}, "depth of every stream FIFO, elements; 0 = the testbench's own default"),
        key("launch.pcu_config_bytes", &C::launch, &LaunchConfig::pcu_config_bytes, {0, kMega}, "Program Load: configuration bytes of each PCU a kernel uses (not published; docs/system.md)"),
        key("launch.pmu_config_bytes", &C::launch, &LaunchConfig::pmu_config_bytes, {0, kMega}, "Program Load: configuration bytes of each PMU a kernel uses (not published)"),
        key("launch.switch_config_bytes", &C::launch, &LaunchConfig::switch_config_bytes, {0, kMega}, "Program Load: routing-table bytes of each switch at a used unit's site (not published)"),
        key("launch.agcu_config_bytes", &C::launch, &LaunchConfig::agcu_config_bytes, {0, kMega}, "Program Load: configuration bytes of each AGCU a kernel uses (not published)"),
        choice("launch.program_tier", &C::launch, &LaunchConfig::program_tier, "the memory tier programs (kernel configurations) are loaded from"),
        key("launch.argument_bytes", &C::launch, &LaunchConfig::argument_bytes, {0, kMega}, "Argument Load: bytes of addresses and scalars per kernel call"),
        key("launch.command_cycles", &C::launch, &LaunchConfig::command_cycles, {0, kBig}, "cycles of each launch command (Program Load, Argument Load, Kernel Execute) through the AGCU, besides the bytes it moves"),
        key("launch.host_round_trip_us", &C::launch, &LaunchConfig::host_round_trip_us, {0, kBig}, "software orchestration: microseconds from a kernel's end until the host's launch of the next reaches the chip (GPU scale: 1.3 us from a CUDA graph, several us eager)"),
        key("launch.schedule_gap_cycles", &C::launch, &LaunchConfig::schedule_gap_cycles, {0, kBig}, "hardware orchestration: cycles the AGCUs take to step to the next kernel of the schedule"),
        processOrderKey(),
        key("sim.completion_notice_cycles", &C::sim, &SimulationConfig::completion_notice_cycles, {0, 64}, "cycles an AGCU learns of an off-chip completion after the memory reports it (a check of the model: cycles and stats do not depend on it while it is within the TLN latency; docs/cycle.md)"),
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
        return choices.empty() ? "string" : fmt::format("one of {}", fmt::join(choices, ", "));
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
        if (accepts) return accepts(text) ? std::optional<KeyValue>(text) : std::nullopt;
        if (!choices.empty() && std::find(choices.begin(), choices.end(), text) == choices.end())
            return std::nullopt;
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

bool isStructuralKey(const std::string& path) {
    static const std::set<std::string> keys{"chip.dies",    "chip.die_tile_rows", "chip.die_tile_cols",
                                            "chip.rows",    "chip.cols",          "chip.agcus_per_tile",
                                            "pcu.rows",     "pcu.cols",           "pmu.capacity_bytes",
                                            "rdn.topology", "rdn.routing",        "rdn.flow_table_entries"};
    return keys.count(path) || path.rfind("pnr.", 0) == 0;
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
            ranged ? fmt::format("[{}, {}]", formatBound(k.type, k.min), formatBound(k.type, k.max))
            : k.choices.empty() ? ""
                                : fmt::format("{}", fmt::join(k.choices, ", "));
        out += fmt::format("| `{}` | {} | `{}` | {} | {} |\n", k.path, typeName(k.type),
                           k.format(k.get(defaults)), range, k.doc);
    }
    return out;
}

} // namespace steprdu::hw
