#pragma once
// A program: kernels, each placed and timed once, and a schedule of calls to them (a layer called once per
// layer with that layer's weights reuses its kernel). How the calls are launched decides what they cost
// besides their execution:
//   software: the host launches every call, a round trip each (launch.host_round_trip_us);
//   hardware: the AGCUs run the schedule, the host starts it once, a gap between calls
//             (launch.schedule_gap_cycles);
//   looping:  as hardware, and consecutive calls of one kernel become one call with a pipelined outer loop
//             (Kernel Looping): one launch, the iterations a kernel's loop interval apart.
// A kernel's configuration stays in its units until another kernel's replaces it, so Program Load is paid
// by a call whose kernel differs from the one before. Calls run one after another.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "system/LaunchModel.h"
#include "util/Choice.h"

namespace steprdu::sys {

enum class Orchestration { Software, Hardware, Looping };
// "software", "hardware", "looping" (nameOf); parseOrchestration throws BadInput naming `where` otherwise.
const ChoiceTable<Orchestration>& choices(Orchestration);
Orchestration parseOrchestration(const std::string& where, const std::string& name);

struct Kernel {
    std::string name;
    KernelFootprint footprint;
    std::int64_t cycles = 0;       // one call's execution, as its backend timed it
    std::int64_t loopInterval = 0; // cycles between looped iterations in the steady state (0: cycles)
    std::int64_t offChipBytes = 0; // one call's
    // Program Load's move of the configuration as the chip simulated it (ProgramLoad.h), and the bytes the
    // program tier read for it; -1: moved at the tier's peak bandwidth (the roofline).
    std::int64_t programMoveCycles = -1;
    std::int64_t programTierBytes = 0;
    std::string loopNote; // why the loop interval is not measured, if it is not
};

struct Program {
    std::vector<Kernel> kernels;
    std::vector<int> calls; // indices into kernels, in order
};

// One launch: a call, or under looping a run of consecutive calls of one kernel.
struct Launch {
    int kernel = 0;
    std::int64_t iterations = 1;
    std::int64_t host = 0; // the host's round trip, or the schedule's gap
    std::int64_t programLoad = 0, argumentLoad = 0, execute = 0;
    std::int64_t total() const { return host + programLoad + argumentLoad + execute; }
};

struct ProgramTime {
    Orchestration orchestration = Orchestration::Software;
    std::vector<Launch> launches;
    std::int64_t host = 0, programLoad = 0, argumentLoad = 0, execute = 0, programBytes = 0;
    std::int64_t total() const { return host + programLoad + argumentLoad + execute; }
};

// Throws BadInput if a call names no kernel or the program has no calls.
ProgramTime timeProgram(const Program& p, Orchestration o, const LaunchModel& launch);

// The split as JSON: totals, and per kernel its calls, launches and the four parts summed.
nlohmann::json toJson(const Program& p, const ProgramTime& t, double clockGhz);

} // namespace steprdu::sys
