// steprdu program <program.yaml> [--backend roofline|cycle] [--orchestration software|hardware|looping|all]
//                 [--hw ..] [--set ..] [--out DIR] [--json] [--quiet]
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "hw/config/HwConfigLoader.h"
#include "system/ProgramFile.h"
#include "system/ProgramRun.h"
#include "tools/Commands.h"
#include "tools/Options.h"
#include "util/Error.h"

namespace po = boost::program_options;

namespace steprdu::cli {

namespace {

int compare(const std::string& path, nlohmann::json both, const std::string& out, const Flags& f) {
    both["program"] = path;
    writeOut(out, {{"program.json", both.dump(2) + "\n"}});
    if (f.json) {
        std::cout << both.dump(2) << "\n";
        return 0;
    }
    std::cout << fmt::format("{} (roofline and cycle level, hw {})\n", path, both["hw"].get<std::string>());
    std::cout << fmt::format("  {:<24} {:>14} {:>14} {:>8}\n", "", "roofline", "cycle level", "ratio");
    for (const auto& o : both["orchestrations"])
        std::cout << fmt::format("  {:<24} {:>14} {:>14} {:>8.3f}\n", o["orchestration"].get<std::string>(),
                                 o["roofline_cycles"].get<std::int64_t>(),
                                 o["cycle_cycles"].get<std::int64_t>(), o["ratio"].get<double>());
    for (const auto& k : both["kernels"])
        std::cout << fmt::format("  {:<24} {:>14} {:>14} {:>8.3f}\n",
                                 "kernel " + k["name"].get<std::string>(), k["roofline"].get<std::int64_t>(),
                                 k["cycle"].get<std::int64_t>(), k["ratio"].get<double>());
    return 0;
}

} // namespace

int cmdProgram(const Args& args) {
    tb::RunRequest base;
    base.hw = kDefaultHw;
    std::string orchestration = "all", out;
    Flags f;
    po::options_description opts("program options");
    addFlags(opts, f);
    opts.add_options()("backend", po::value(&base.backend)->default_value(base.backend),
                       "roofline or cycle: what times each kernel; compare: both, side by side")(
        "orchestration", po::value(&orchestration)->default_value(orchestration),
        "software (the host launches every call), hardware (the AGCUs run the schedule), looping (and "
        "consecutive calls of a kernel become one), or all three")("out", po::value(&out),
                                                                   "write program.json and stats.csv here");
    addHardwareOptions(opts, base.hw, base.sets);
    std::vector<std::string> positional;
    if (parseOrHelp("program", args, opts, &positional, f,
                    "Time a program of kernels (docs/system.md): each distinct kernel is run once on the\n"
                    "backend, and every call of it costs its execution plus its launch: Program Load (the\n"
                    "configuration bytes of the units it uses, from launch.program_tier), Argument Load,\n"
                    "Kernel Execute, and the host's round trip or the schedule's gap (launch.* keys)."))
        return 0;
    if (positional.size() != 1)
        throw BadInput(fmt::format("program: expected one program file, found {}", positional.size()));
    checkHwOption(base.hw);
    const auto modes = sys::orchestrationsOf("--orchestration", orchestration);
    const sys::ProgramFile file = sys::readProgramFile(positional[0]);
    auto progress = [&](const std::string& kernel) {
        if (f.showProgress()) std::cerr << fmt::format("steprdu program: timing kernel {}\n", kernel);
    };
    if (base.backend == "compare")
        return compare(positional[0], sys::compareProgram(file, base, modes, progress), out, f);
    nlohmann::json result = sys::runProgram(file, base, modes, progress);
    result["program"] = positional[0];
    writeOut(out, {{"program.json", result.dump(2) + "\n"}, {"stats.csv", sys::programStatsCsv(result)}});
    if (f.json) {
        std::cout << result.dump(2) << "\n";
        return 0;
    }
    std::cout << fmt::format("{} ({} backend, hw {}): {} call(s) of {} kernel(s), {} kernel run(s)\n",
                             positional[0], base.backend, result["hw"].get<std::string>(),
                             result["calls"].get<std::int64_t>(), result["kernels"].get<std::int64_t>(),
                             result["kernel_runs"].get<int>());
    std::cout << fmt::format("  {:<10} {:>14} {:>10} {:>9} {:>12} {:>12} {:>13} {:>14}\n", "launching",
                             "cycles", "us", "launches", "host", "program load", "argument load", "execute");
    for (const auto& o : result["orchestrations"])
        std::cout << fmt::format("  {:<10} {:>14} {:>10.1f} {:>9} {:>12} {:>12} {:>13} {:>14}\n",
                                 o["orchestration"].get<std::string>(), o["cycles"].get<std::int64_t>(),
                                 o["seconds"].get<double>() * 1e6, o["launches"].get<std::int64_t>(),
                                 o["host"].get<std::int64_t>(), o["program_load"].get<std::int64_t>(),
                                 o["argument_load"].get<std::int64_t>(), o["execute"].get<std::int64_t>());
    return 0;
}

} // namespace steprdu::cli
