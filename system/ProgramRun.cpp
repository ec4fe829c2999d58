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
        throw BadInput(
            fmt::format("--backend: expected roofline, cycle or compare, found '{}'", base.backend));
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

nlohmann::json compareProgram(const ProgramFile& file, const tb::RunRequest& base,
                              const std::vector<Orchestration>& modes,
                              const std::function<void(const std::string&)>& progress) {
    nlohmann::json both = {{"backend", "compare"}};
    for (const char* b : {"roofline", "cycle"}) {
        tb::RunRequest r = base;
        r.backend = b;
        both[b] = runProgram(file, r, modes, [&](const std::string& k) {
            if (progress) progress(std::string(b) + ": " + k);
        });
    }
    both["hw"] = both["cycle"]["hw"];
    auto ratio = [](const nlohmann::json& roof, const nlohmann::json& cyc) {
        const double r = roof.get<double>();
        return r > 0 ? cyc.get<double>() / r : 0.0;
    };
    both["orchestrations"] = nlohmann::json::array();
    both["kernels"] = nlohmann::json::array();
    const auto& ro = both["roofline"]["orchestrations"];
    const auto& co = both["cycle"]["orchestrations"];
    for (std::size_t i = 0; i < ro.size(); ++i)
        both["orchestrations"].push_back({{"orchestration", ro[i]["orchestration"]},
                                          {"roofline_cycles", ro[i]["cycles"]},
                                          {"cycle_cycles", co[i]["cycles"]},
                                          {"ratio", ratio(ro[i]["cycles"], co[i]["cycles"])}});
    if (!ro.empty())
        for (std::size_t k = 0; k < ro[0]["kernels"].size(); ++k) {
            const auto &rk = ro[0]["kernels"][k], &ck = co[0]["kernels"][k];
            both["kernels"].push_back({{"name", rk["name"]},
                                       {"roofline", rk["cycles_per_call"]},
                                       {"cycle", ck["cycles_per_call"]},
                                       {"ratio", ratio(rk["cycles_per_call"], ck["cycles_per_call"])}});
        }
    return both;
}

std::string programStatsCsv(const nlohmann::json& result) {
    std::string out = "path,value,unit\n";
    auto row = [&](const std::string& path, const nlohmann::json& v, const char* unit) {
        out += fmt::format("{},{},{}\n", path, v.get<std::int64_t>(), unit);
    };
    for (const auto& o : result.at("orchestrations")) {
        const std::string base = "program." + o.at("orchestration").get<std::string>();
        for (const char* k : {"cycles", "host", "program_load", "argument_load", "execute"})
            row(base + "." + k, o.at(k), "cycles");
        row(base + ".launches", o.at("launches"), "count");
        row(base + ".program_bytes", o.at("program_bytes"), "bytes");
        for (const auto& kn : o.at("kernels")) {
            const std::string at = base + "." + kn.at("name").get<std::string>();
            for (const char* k : {"host", "program_load", "argument_load", "execute", "cycles_per_call"})
                row(at + "." + k, kn.at(k), "cycles");
            row(at + ".calls", kn.at("calls"), "count");
            row(at + ".launches", kn.at("launches"), "count");
        }
    }
    return out;
}

} // namespace steprdu::sys
