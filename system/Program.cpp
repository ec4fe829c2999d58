#include "system/Program.h"

#include <fmt/format.h>

#include "util/Error.h"

namespace steprdu::sys {

const ChoiceTable<Orchestration>& choices(Orchestration) {
    static const ChoiceTable<Orchestration> table{{"software", Orchestration::Software},
                                                  {"hardware", Orchestration::Hardware},
                                                  {"looping", Orchestration::Looping}};
    return table;
}

Orchestration parseOrchestration(const std::string& where, const std::string& name) {
    if (auto o = parseChoice(choices(Orchestration{}), name)) return *o;
    throw BadInput(fmt::format("{}: expected software, hardware or looping, found '{}'", where, name));
}

ProgramTime timeProgram(const Program& p, Orchestration o, const LaunchModel& launch) {
    if (p.calls.empty()) throw BadInput("program: expected at least one call in its schedule, found none");
    for (int k : p.calls)
        if (k < 0 || k >= static_cast<int>(p.kernels.size()))
            throw BadInput(
                fmt::format("program: a call names kernel {}, which the program does not have", k));
    ProgramTime t;
    t.orchestration = o;
    int loaded = -1; // the kernel whose configuration the units hold
    for (std::size_t i = 0; i < p.calls.size();) {
        const int k = p.calls[i];
        std::size_t n = 1;
        if (o == Orchestration::Looping)
            while (i + n < p.calls.size() && p.calls[i + n] == k)
                ++n;
        const Kernel& kernel = p.kernels[k];
        Launch l;
        l.kernel = k;
        l.iterations = static_cast<std::int64_t>(n);
        const bool first = i == 0;
        l.host =
            o == Orchestration::Software || first ? launch.hostRoundTripCycles() : launch.scheduleGapCycles();
        if (loaded != k) {
            l.programLoad = launch.programLoadCycles(kernel.footprint, kernel.programMoveCycles);
            t.programBytes += launch.programBytes(kernel.footprint);
        }
        loaded = k;
        l.argumentLoad = launch.argumentLoadCycles(l.iterations);
        const std::int64_t interval = kernel.loopInterval > 0 ? kernel.loopInterval : kernel.cycles;
        l.execute = launch.executeCommandCycles() + kernel.cycles + (l.iterations - 1) * interval;
        t.host += l.host;
        t.programLoad += l.programLoad;
        t.argumentLoad += l.argumentLoad;
        t.execute += l.execute;
        t.launches.push_back(l);
        i += n;
    }
    return t;
}

nlohmann::json toJson(const Program& p, const ProgramTime& t, double clockGhz) {
    nlohmann::json kernels = nlohmann::json::array();
    for (std::size_t k = 0; k < p.kernels.size(); ++k) {
        const Kernel& kn = p.kernels[k];
        std::int64_t calls = 0, launches = 0, host = 0, load = 0, args = 0, exec = 0;
        for (const Launch& l : t.launches) {
            if (l.kernel != static_cast<int>(k)) continue;
            calls += l.iterations;
            ++launches;
            host += l.host;
            load += l.programLoad;
            args += l.argumentLoad;
            exec += l.execute;
        }
        kernels.push_back({{"name", kn.name},
                           {"calls", calls},
                           {"launches", launches},
                           {"cycles_per_call", kn.cycles},
                           {"program_load_simulated", kn.programMoveCycles >= 0},
                           {"program_tier_bytes_read", kn.programTierBytes},
                           {"loop_interval", kn.loopInterval > 0 ? kn.loopInterval : kn.cycles},
                           {"loop_interval_note", kn.loopNote},
                           {"units",
                            {{"pcu", kn.footprint.pcus},
                             {"pmu", kn.footprint.pmus},
                             {"agcu", kn.footprint.agcus},
                             {"switch", kn.footprint.switches}}},
                           {"host", host},
                           {"program_load", load},
                           {"argument_load", args},
                           {"execute", exec}});
    }
    std::int64_t offChip = 0;
    for (int k : p.calls)
        offChip += p.kernels[k].offChipBytes;
    const double seconds = static_cast<double>(t.total()) / (clockGhz * 1e9);
    return {{"orchestration", nameOf(t.orchestration)},
            {"cycles", t.total()},
            {"seconds", seconds},
            {"calls", p.calls.size()},
            {"launches", t.launches.size()},
            {"host", t.host},
            {"program_load", t.programLoad},
            {"argument_load", t.argumentLoad},
            {"execute", t.execute},
            {"program_bytes", t.programBytes},
            {"off_chip_bytes", offChip},
            {"off_chip_bytes_per_second", seconds > 0 ? static_cast<double>(offChip) / seconds : 0.0},
            {"kernels", kernels}};
}

} // namespace steprdu::sys
