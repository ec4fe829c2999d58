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

} // namespace steprdu::sys
