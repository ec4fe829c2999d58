#pragma once
// Differential testing (`steprdu difftest`): random programs run on the interpreter, the roofline backend and
// the cycle backend (functional), which must agree with each other and with the symbolic metrics.
//
// Per program: no executor deadlocks at the default stream depth; every executor moves exactly the
// symbolic off-chip bytes; the cycle backend writes the interpreter's output tensors bit for bit and takes
// no fewer cycles than the physical lower bounds (off-chip bytes at the memory's peak, FLOPs at the chip's
// peak). A failing program is minimized and written as a graph file that `steprdu run-graph` reproduces.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/config/HwConfig.h"
#include "step_ops/TensorStore.h"
#include "testbenches/RandomProgram.h"
#include "testbenches/Runner.h"

namespace steprdu::tb {

struct DiffTestOptions {
    std::vector<std::string> backends{"interp", "roofline", "cycle"};
    std::string hw = "step_eval";
    std::vector<std::string> sets;
    std::int64_t channelDepth = 2; // the testbenches' default stream depth
    std::string outDir = ".";      // where minimized failing programs are written
    std::function<void(int done, int total, int failed)> progress;
    // Tests only: corrupts the cycle backend's copy of each program, to show that the checks catch a fault.
    std::function<void(step::Graph&)> cycleFault;
};

struct DiffTestFailure {
    std::uint64_t seed = 0;
    std::string reason;     // the first check that failed, on the minimized program
    std::string reproducer; // the minimized graph file
    std::string command;    // the run-graph command that shows the failure
};

struct DiffTestReport {
    int programs = 0, passed = 0;
    std::vector<DiffTestFailure> failures;
    std::map<std::string, int> families; // programs that used each operator kind
    std::int64_t operators = 0;          // operators over all programs
    nlohmann::json toJson() const;
};

// The first failed check of a program on the requested backends, or "" when every check holds.
std::string checkRandomProgram(const RandomProgramPlan& plan, const DiffTestOptions& o);
// Programs seed, seed+1, ..., seed+count-1.
DiffTestReport runDiffTest(std::uint64_t seed, int count, const DiffTestOptions& o);
// One functional cycle-level run of the program `build` returns, in a child process (SystemC elaborates once
// per process): {cycles, off_chip_bytes, memory_peak_bytes_per_cycle, tensors}, the tensors' values with
// every bit kept (floatsToJson). Throws as the run did (BadInput, NoProgress, ...).
nlohmann::json runCycleInChild(const std::function<Workload()>& build, const hw::HwConfig& cfg);
// The first tensor whose values in `got` (runCycleInChild's "tensors") differ from the interpreter's, or "".
std::string firstDifference(const step::Graph& g, const step::TensorStore& want, const nlohmann::json& got);
// The graph file of a program: the graph, plus the bindings of its data-dependent sizes.
nlohmann::json randomProgramJson(const RandomProgram& p);

} // namespace steprdu::tb
