#include "hw/sim/Stats.h"

#include <stdexcept>

#include <fmt/format.h>

namespace steprdu::hw {

const std::vector<StatDef>& statDefinitions() {
    static const std::vector<StatDef> defs = {
        // Operators (chip.<unit>.<operator>) and the units that host them (chip.<unit>).
        {"busy_cycles", "cycles",
         "cycles the operator's unit spent on its work (compute, port transfers); a PCU counts the work of "
         "every compute group it belongs to"},
        {"stall_input_cycles", "cycles",
         "cycles the operator waited for an input token, or for the last bytes of an element it works on"},
        {"stall_output_cycles", "cycles", "cycles the operator waited for a credit of an output stream"},
        {"stall_memory_cycles", "cycles",
         "cycles the operator waited for off-chip memory (window, tiles in flight)"},
        {"finish_cycle", "cycle", "cycle at which the operator returned (saw Done on every input)"},
        {"elements", "count", "data elements the operator consumed"},
        {"units", "count", "physical units of the virtual unit (PCUs of a compute group, PMUs of a buffer)"},
        // Streams (chip.stream.<producer>.<port>)
        {"tokens", "count", "tokens (data, stops, Done) that crossed the stream"},
        {"data_bytes", "bytes", "bytes of the data elements that crossed the stream"},
        {"max_occupancy", "elements",
         "most data elements in the stream in one cycle (from the cycle each enters it to the one it is read "
         "in)"},
        {"mean_occupancy", "elements", "time-weighted mean of the data elements in the stream"},
        {"lanes", "count",
         "fabric lanes the stream's tiles are split over (0: producer and consumer share a unit)"},
        // PMUs (chip.<pmu>)
        {"write_bytes", "bytes", "bytes written into the PMU's SRAM (stage buffers and operators)"},
        {"read_bytes", "bytes", "bytes read from the PMU's SRAM"},
        {"port_busy_cycles", "cycles", "cycles the PMU's read or write port was transferring"},
        {"bank_conflict_cycles", "cycles", "extra port cycles caused by accesses that hit the same bank"},
        {"peak_allocated_bytes", "bytes", "largest SRAM allocation live at once (buffers, stages, replays)"},
        // AGCUs (chip.<agcu>)
        {"read_bursts", "count", "read bursts the AGCU issued to memory"},
        {"write_bursts", "count", "write bursts the AGCU issued to memory"},
        {"offchip_bytes", "bytes",
         "bytes of the off-chip tiles the AGCU's operators accessed (as requested)"},
        {"window_full_cycles", "cycles", "cycles requests waited because the AGCU's window was full"},
        // Off-chip tiers (chip.hbm, chip.ddr) and, for DRAM tiers, their channels (chip.hbm.ch3)
        {"requests", "count", "requests the published simulator's HBM node served (step_node tier)"},
        {"bytes_read", "bytes",
         "bytes the tier read: transactions x transaction size (requests x request size)"},
        {"bytes_written", "bytes",
         "bytes the tier wrote: transactions x transaction size (requests x request size)"},
        {"achieved_bytes_per_cycle", "B/cycle", "bytes read and written over the run's fabric cycles"},
        {"peak_bytes_per_cycle", "B/cycle",
         "the tier's peak bandwidth in fabric cycles: every data bus busy"},
        {"read_transactions", "count", "column reads issued (one transaction of the preset's size each)"},
        {"write_transactions", "count", "column writes issued (one transaction of the preset's size each)"},
        {"row_hits", "count", "transactions whose row was already open"},
        {"row_misses", "count", "transactions that needed an ACT of a closed bank"},
        {"row_conflicts", "count", "transactions that needed a PRE of another row, then an ACT"},
        {"data_bus_utilization", "fraction",
         "data bus cycles carrying data (transactions x nBL) over the run's DRAM cycles, per bus"},
        {"bank_open_fraction", "fraction", "bank-cycles with a row open over all bank-cycles of the run"},
        {"read_latency_mean_ns", "ns",
         "mean time from a read transaction's entry into the read queue to its last data beat"},
        {"read_queue_mean", "entries", "time-weighted mean read queue occupancy per channel"},
        {"write_queue_mean", "entries", "time-weighted mean write queue occupancy per channel"},
        {"refreshes", "count", "all-bank refreshes issued (per rank or pseudo-channel)"},
        {"refresh_fraction", "fraction",
         "rank-cycles spent in refresh (refreshes x tRFC) over all rank-cycles of the run"},
        {"timing_violations", "count",
         "commands that broke a timing constraint (memory.check_timing; must be 0)"},
        // RDN (chip.rdn and chip.rdn.<switch>)
        {"link_bytes", "bytes", "bytes carried by links between switches, summed over every link crossed"},
        {"packet_hops", "count", "link grants: packets (or flits in flit-level mode) times links crossed"},
        {"bytes_out", "bytes", "bytes the switch sent on its links to other switches"},
        {"link_busy_cycles", "cycles", "cycles the switch's outgoing links were occupied, summed over them"},
        {"max_link_utilization", "fraction", "busiest outgoing link's occupied cycles over the run's cycles"},
    };
    return defs;
}

std::string statsMarkdown() {
    std::string out = "| stat | unit | definition |\n|---|---|---|\n";
    for (const auto& d : statDefinitions())
        out += fmt::format("| `{}` | {} | {} |\n", d.name, d.unit, d.description);
    return out;
}

void StatsRegistry::add(const std::string& path, const std::string& name, double value) {
    for (const auto& d : statDefinitions())
        if (d.name == name) {
            stats_.push_back({path, name, value});
            return;
        }
    throw std::logic_error("stat '" + name + "' has no definition in hw/sim/Stats.cpp");
}

double StatsRegistry::sum(const std::string& name, const std::string& prefix) const {
    double s = 0;
    for (const auto& st : stats_)
        if (st.name == name && st.path.rfind(prefix, 0) == 0) s += st.value;
    return s;
}

namespace {
const StatDef& def(const std::string& name) {
    for (const auto& d : statDefinitions())
        if (d.name == name) return d;
    throw std::logic_error("stat '" + name + "' has no definition");
}
} // namespace

nlohmann::json StatsRegistry::toJson() const {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& st : stats_) {
        nlohmann::json* node = &out;
        std::size_t start = 0;
        for (;;) {
            auto dot = st.path.find('.', start);
            node = &(*node)[st.path.substr(start, dot - start)];
            if (dot == std::string::npos) break;
            start = dot + 1;
        }
        (*node)[st.name] = {
            {"value", st.value}, {"unit", def(st.name).unit}, {"description", def(st.name).description}};
    }
    return out;
}

std::string StatsRegistry::toCsv() const {
    std::string out = "path,value,unit\n";
    for (const auto& st : stats_)
        out += fmt::format("{}.{},{},{}\n", st.path, st.name, st.value, def(st.name).unit);
    return out;
}

} // namespace steprdu::hw
