#pragma once
// A program timed on one backend, as `steprdu program` and steprdu.Program do it: every distinct kernel run
// once, then the schedule under each orchestration asked for (docs/system.md).
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "system/Program.h"
#include "system/ProgramFile.h"
#include "testbenches/Runner.h"

namespace steprdu::sys {

// "all" (software, hardware, looping) or one of them; BadInput naming `where` otherwise.
std::vector<Orchestration> orchestrationsOf(const std::string& where, const std::string& name);

// `base` carries the backend (roofline or cycle), the hardware and --set of every kernel. The result:
// {backend, hw, clock_ghz, kernel_runs, orchestrations: [toJson per mode]}. `progress` hears each kernel's
// name before it is timed.
nlohmann::json runProgram(const ProgramFile& program, const tb::RunRequest& base,
                          const std::vector<Orchestration>& modes,
                          const std::function<void(const std::string&)>& progress = {});

// The program on both backends (`steprdu program --backend compare`): {roofline, cycle (runProgram's
// results), orchestrations: [{orchestration, roofline_cycles, cycle_cycles, ratio}], kernels: [{name,
// roofline, cycle, ratio}]}, each ratio cycle level over roofline.
nlohmann::json compareProgram(const ProgramFile& program, const tb::RunRequest& base,
                              const std::vector<Orchestration>& modes,
                              const std::function<void(const std::string&)>& progress = {});

// runProgram's result as stats keyed by path, the cycle backend's stats.csv format (path,value,unit):
// program.<orchestration>.{cycles,host,program_load,argument_load,execute,launches} and the same per kernel
// under program.<orchestration>.<kernel>.
std::string programStatsCsv(const nlohmann::json& result);

} // namespace steprdu::sys
