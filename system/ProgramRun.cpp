#include "system/ProgramRun.h"

#include <algorithm>

#include <fmt/format.h>

#include "system/KernelTimer.h"
#include "util/Error.h"
#include "util/Strings.h"

namespace steprdu::sys {

std::vector<Orchestration> orchestrationsOf(const std::string& where, const std::string& name) {
    if (name == "all") return {Orchestration::Software, Orchestration::Hardware, Orchestration::Looping};
    if (parseChoice(choices(Orchestration{}), name)) return {parseOrchestration(where, name)};
    const auto near = nearestWord(name, {"software", "hardware", "looping", "all"});
    throw BadInput(fmt::format("{}: expected software, hardware, looping or all, found '{}'{}", where, name,
                               near ? fmt::format("; did you mean '{}'?", *near) : ""));
}

nlohmann::json runProgram(const ProgramFile& file, const tb::RunRequest& base,
                          const std::vector<Orchestration>& modes,
                          const std::function<void(const std::string&)>& progress) {
    if (base.backend != "roofline" && base.backend != "cycle")
        throw BadInput(fmt::format("--backend: expected roofline or cycle, found '{}'", base.backend));
    const hw::HwConfig cfg = tb::hardwareOf(base);
    const LaunchModel launch(cfg);
    KernelTimer timer(base, cfg);
    const bool looping = std::find(modes.begin(), modes.end(), Orchestration::Looping) != modes.end();
    Program program;
    program.calls = file.calls;
    for (const auto& spec : file.kernels) {
        if (progress) progress(spec.name);
        program.kernels.push_back(timer.time(spec, looping));
    }
    nlohmann::json result = {{"backend", base.backend},
                             {"hw", cfg.name},
                             {"clock_ghz", cfg.clock_ghz},
                             {"calls", program.calls.size()},
                             {"kernels", program.kernels.size()},
                             {"kernel_runs", timer.runs()},
                             {"orchestrations", nlohmann::json::array()}};
    for (auto m : modes)
        result["orchestrations"].push_back(toJson(program, timeProgram(program, m, launch), cfg.clock_ghz));
    return result;
}

} // namespace steprdu::sys
