#pragma once
// The typed hardware configuration. Every default lives in the member initialisers below; the key table
// (ranges, docs, YAML/JSON names) is hw/config/ConfigSchema.cpp, and presets in configs/*.yaml override a
// subset. Defaults: the published STeP simulator's evaluation setup (PMU and HBM) and the SN40L-like values
// of hardware-and-pnr.md section 7 for everything STeP does not model.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "hw/mem/dram/DramSpec.h"
#include "util/Choice.h"

namespace steprdu::hw {

// The choices of the configuration, parsed from their names (the `choices` tables, HwConfig.cpp) once at
// load.
enum class Topology { Mesh, Ideal };
enum class RoutePolicy { Negotiated, Xy, Yx };
enum class Placer { Anneal, Constructive };
enum class OnOverflow { Error, Shrink, Sections };
enum class RowPolicy { Open, Closed };
enum class OffChipLayout { RowMajor, Tiled, TileMajor };
// The off-chip tiers, in the order the chip numbers them.
enum class Tier { Hbm = 0, Ddr = 1 };
constexpr int kTiers = 2;
const ChoiceTable<Topology>& choices(Topology);
const ChoiceTable<RoutePolicy>& choices(RoutePolicy);
const ChoiceTable<Placer>& choices(Placer);
const ChoiceTable<OnOverflow>& choices(OnOverflow);
const ChoiceTable<RowPolicy>& choices(RowPolicy);
const ChoiceTable<OffChipLayout>& choices(OffChipLayout);
const ChoiceTable<Tier>& choices(Tier);

// What backs an off-chip tier (memory.hbm, memory.ddr): nothing, the published STeP simulator's node, or a
// DRAM preset (hw/mem/dram/DramSpec.h).
struct TierDevice {
    enum class Model { None, StepNode, Dram };
    Model model = Model::None;
    mem::DramPreset dram = mem::DramPreset::Hbm2; // with Model::Dram

    static TierDevice none() { return {}; }
    static TierDevice stepNode() { return {Model::StepNode}; }
    static TierDevice of(mem::DramPreset p) { return {Model::Dram, p}; }
    bool operator==(const TierDevice& o) const {
        return model == o.model && (model != Model::Dram || dram == o.dram);
    }
    bool operator!=(const TierDevice& o) const { return !(*this == o); }
};
// memory.hbm: step_node or an HBM preset; memory.ddr: none or a DDR preset.
const ChoiceTable<TierDevice>& hbmDevices();
const ChoiceTable<TierDevice>& ddrDevices();
// memory.<tier>_mapping: the preset's own ("preset", none) or a mapping scheme.
const ChoiceTable<std::optional<mem::MappingScheme>>& mappingChoices();

// Pattern memory unit: on-chip SRAM scratchpad.
struct PmuConfig {
    // STeP's PMU_BW: charged separately to the reads and to the writes of one element. On the chip it is
    // the read port width and the write port width (all ports of one direction together).
    int bandwidth_bytes_per_cycle = 64;
    std::int64_t capacity_bytes = 524288;
    int banks = 16;
    int bank_word_bytes = 16;
    int read_latency_cycles = 4;
};

// Pattern compute unit: an output-stationary systolic array plus a SIMD pipeline.
struct PcuConfig {
    int rows = 16;
    int cols = 16;
    int simd_lanes = 16;
    int simd_stages = 6;
    int pipeline_latency_cycles = 10;

    // Two FLOPs per MAC, one MAC per array cell per cycle.
    std::int64_t peakFlopsPerCycle() const { return 2LL * rows * cols; }
};

// Address generation and coalescing unit: the off-chip operators' port to memory.
struct AgcuConfig {
    int burst_bytes = 64;
    int max_outstanding = 64;
    int bursts_per_cycle = 4;
    int tln_latency_cycles = 20;
    int tiles_in_flight = 2;
};

// Off-chip HBM as the STeP simulator's HBMConfig(addr_offset, channel_num, per_channel_latency,
// per_channel_init_interval, per_channel_outstanding, per_channel_start_up_time), in that order.
struct HbmConfig {
    int request_bytes = 64;
    int channels = 32;
    int latency_cycles = 2;
    int init_interval_cycles = 2;
    int outstanding_per_channel = 1;
    int startup_cycles = 14;

    // Every channel accepts one request per init interval.
    double peakBytesPerCycle() const;
};

// The off-chip tiers behind the AGCUs and where tensors live in them. `hbm` is the published simulator's node
// (configured by the hbm section) or an HBM preset of hw/mem/dram/DramSpec.cpp; `ddr` is a DDR preset or
// none. The controller keys apply to every DRAM tier.
struct MemoryConfig {
    TierDevice hbm = TierDevice::stepNode();
    TierDevice ddr = TierDevice::none();
    int hbm_channels = 0; // 0: the preset's
    int ddr_channels = 0;
    std::optional<mem::MappingScheme> hbm_mapping; // none: the preset's
    std::optional<mem::MappingScheme> ddr_mapping;
    RowPolicy row_policy = RowPolicy::Open;
    int read_queue = 32;
    int write_queue = 32;
    double write_high = 0.8;
    double write_low = 0.2;
    bool refresh = true;
    bool posted_writes = true;
    bool fast_path = true;
    bool check_timing = false;
    OffChipLayout layout = OffChipLayout::RowMajor;
    // The tier of each tensor class (memory.place.<class>).
    Tier place_weights = Tier::Hbm;
    Tier place_activations = Tier::Hbm;
    Tier place_kv_cache = Tier::Hbm;
};

// Reconfigurable dataflow network (vector fabric); stop tokens and credits use the control fabric.
struct RdnConfig {
    Topology topology = Topology::Mesh; // or ideal: a dedicated link per stream (STeP section 4.5)
    // Static routes: all along the row first (xy), all along the column first (yx), or either per
    // destination as place-and-route negotiates them (negotiated: west-first turn model, deadlock-free).
    RoutePolicy routing = RoutePolicy::Negotiated;
    int flit_bytes = 64;
    int switch_latency_cycles = 1;
    int link_latency_cycles = 1;
    int credit_latency_cycles = 1;
    int vc_buffer_flits = 4;
    int control_hop_cycles = 1;
    int local_hop_cycles = 1;
    bool flit_level = false;        // every flit its own packet: slow, for checking the packet model
    int packet_flits = 0;           // flits per packet at most (0: a message is one packet)
    int multicast_packet_flits = 0; // the same on a multicast that forks on the fabric (0: packet_flits)
    int flow_table_entries = 256;   // static flows one switch can hold
};

// Place-and-route (hw/pnr): lowering, simulated-annealing placement, negotiated-congestion routing.
struct PnrConfig {
    Placer placer = Placer::Anneal; // anneal (constructive start, then annealing) | constructive
    int seed = 1;
    int starts = 4;                 // annealing runs from seeds seed, seed + 1, ...; the best routed one wins
    int evaluate = 4;               // the predicted best starts a cycle run simulates; the fastest is kept
    double effort = 1.0;            // scales the annealer's moves per temperature
    double congestion_weight = 4.0; // lambda_cong of the placement cost
    int route_iterations = 50;      // negotiated-congestion rounds at most
    bool repair = true;             // move the ends of streams on links routing left over-subscribed
    double lane_headroom = 2.0;     // lanes a stream gets: its rate-model bandwidth x this, in links
    OnOverflow on_overflow = OnOverflow::Error;
};

// The socket: dies side by side, each a grid of tiles, each tile a checkerboard of PCU and PMU sites.
struct ChipConfig {
    int dies = 2;
    int die_tile_rows = 2;
    int die_tile_cols = 2;
    int rows = 13;
    int cols = 20;
    int agcus_per_tile = 4;
    int d2d_latency_cycles = 8;

    int gridRows() const { return die_tile_rows * rows; }
    int gridCols() const { return dies * die_tile_cols * cols; }
    int tiles() const { return dies * die_tile_rows * die_tile_cols; }
};

// Knobs of the roofline (STeP-equivalent) backend rather than of the hardware.
struct RooflineConfig {
    // Reproduce the published simulator's quirks (e.g. HBM start-up on every request).
    bool step_compat = true;
    // Depth of every stream FIFO; 0 keeps the testbench's own default (as the paper's scripts chose it).
    int channel_depth = 0;
};

// Kernel launches (system/, docs/system.md): what a launch moves and waits for. None of it is published for
// the SN40L: the defaults are stated assumptions, to be swept.
struct LaunchConfig {
    // Program Load: configuration bytes per unit the kernel uses, read from `program_tier`.
    int pcu_config_bytes = 8192;
    int pmu_config_bytes = 2048;
    int switch_config_bytes = 1024; // per switch at a used unit's site
    int agcu_config_bytes = 512;
    Tier program_tier = Tier::Hbm;
    int argument_bytes = 256; // Argument Load: addresses and scalars, per call
    int command_cycles = 100; // each of Program Load, Argument Load, Kernel Execute through the AGCU
    double host_round_trip_us =
        10;                       // software orchestration: the host sees a kernel end and launches the next
    int schedule_gap_cycles = 64; // hardware orchestration: the AGCUs step to the schedule's next kernel
};

// Knobs of the simulation rather than of the hardware.
struct SimulationConfig {
    // The order in which the chip creates its SystemC processes, and with it SystemC's order of runnable
    // processes: forward, reverse or shuffle:<seed>. Cycles and stats must not depend on it.
    std::string process_order = "forward";
    // Cycles an AGCU learns of a completion after the memory reports it (it still carries its cycle). The
    // fabric acts on computed arrival times, so cycles and stats must not depend on it either.
    int completion_notice_cycles = 0;
};
// The creation order of `n` processes under `order` (sim.process_order): a permutation of 0 .. n-1, or
// nothing if `order` is none of forward, reverse and shuffle:<seed>.
std::optional<std::vector<int>> processOrder(const std::string& order, int n);
struct HwConfig;
// processOrder of `cfg`'s sim.process_order; BadInput if it is malformed.
std::vector<int> creationOrder(const HwConfig& cfg, int n);

using KeyValue = std::variant<std::int64_t, double, bool, std::string>;

struct HwConfig {
    std::string name = "default";
    std::string description;
    double clock_ghz = 1.2;
    PmuConfig pmu;
    PcuConfig pcu;
    AgcuConfig agcu;
    HbmConfig hbm;
    MemoryConfig memory;
    RdnConfig rdn;
    ChipConfig chip;
    RooflineConfig roofline;
    PnrConfig pnr;
    LaunchConfig launch;
    SimulationConfig sim;
    // Parameters of single units, by unit name and section key: {"pcu_r3c7": {"pcu.simd_lanes": 8}}.
    std::map<std::string, std::map<std::string, KeyValue>> units;

    // This configuration as the unit `unit` (e.g. "pcu_r3c7") sees it: its own overrides applied.
    HwConfig forUnit(const std::string& unit) const;
};

// The DRAM spec of `tier`, whose device is a DRAM preset: the preset with the tier's channel and mapping
// overrides applied.
mem::DramSpec tierSpec(const HwConfig& cfg, Tier tier);
// The peak bandwidth of `tier` in bytes per fabric cycle, whatever its device (0 where there is none): the
// published node's channels, or the DRAM data buses at the DRAM clock converted to the fabric's.
double tierPeakBytesPerCycle(const HwConfig& cfg, Tier tier);
// Fabric cycles from a read's issue at an idle `tier` to its data: the published node's latency, or a DRAM
// activate, read and burst (tRCD + tCL + tBL) at the DRAM clock (0 where there is no tier).
double tierIdleLatencyCycles(const HwConfig& cfg, Tier tier);
// Cycles from an AGCU's request to its slot's return at the idle HBM tier: the TLN both ways and the tier's
// latency.
double agcuIdleRoundTripCycles(const HwConfig& cfg);
// Bytes per cycle one AGCU moves each way at most: a flit into (and out of) the fabric, its bursts per cycle.
double agcuLinkBytesPerCycle(const HwConfig& cfg);

// Key-by-key comparison over the schema, so a new key is compared without touching this code.
bool operator==(const HwConfig& a, const HwConfig& b);
bool operator!=(const HwConfig& a, const HwConfig& b);

} // namespace steprdu::hw
