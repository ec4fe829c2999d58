// steprdu experiment list | <name> | claims | calibration [--shared DIR] [--out DIR] [--json]
//                    sn40l_fig10 | sn40l_fig11 also [--backend roofline|cycle] [--hw ..] [--set ..]
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "system/Sn40lExperiments.h"
#include "testbenches/Calibration.h"
#include "testbenches/Claims.h"
#include "testbenches/Experiment.h"
#include "tools/Commands.h"
#include "tools/Options.h"
#include "util/Error.h"

namespace po = boost::program_options;

namespace steprdu::cli {

namespace {

// Writes `doc` to `path`; with --json also prints it and returns true, so that the text table is left out.
bool writeReport(const nlohmann::json& doc, const std::string& path, bool json) {
    std::ofstream(path) << doc.dump(2) << "\n";
    if (json) std::cout << doc.dump(2) << "\n";
    return json;
}

int printCalibration(const std::vector<tb::CalibrationCheck>& checks, const std::string& out, bool json) {
    nlohmann::json j = nlohmann::json::array();
    for (auto& k : checks)
        j.push_back({{"group", k.group},
                     {"point", k.what},
                     {"measured", k.measured},
                     {"reference", k.reference},
                     {"relative_difference", k.relative()},
                     {"tolerance", k.tolerance},
                     {"within_tolerance", k.ok()}});
    bool all = std::all_of(checks.begin(), checks.end(), [](const auto& k) { return k.ok(); });
    if (writeReport({{"checks", j}, {"all_within_tolerance", all}}, out + "/calibration.json", json))
        return 0;
    std::cout << fmt::format("{:18} {:36} {:>12} {:>12} {:>7}\n", "group", "point", "steprdu", "published",
                             "diff");
    for (auto& k : checks)
        std::cout << fmt::format("{:18} {:36} {:>12} {:>12} {:+6.2f}% {}\n", k.group, k.what,
                                 fmt::format(k.reference > 100 ? "{:.0f}" : "{:.4f}", k.measured),
                                 fmt::format(k.reference > 100 ? "{:.0f}" : "{:.4f}", k.reference),
                                 100 * k.relative(),
                                 k.ok() ? "" : fmt::format("(outside {:g}%)", 100 * k.tolerance));
    return 0;
}

int printClaims(const std::map<std::string, tb::ExperimentResult>& results, const std::string& out,
                bool json) {
    auto claims = tb::paperClaims(results);
    nlohmann::json j = nlohmann::json::array();
    for (auto& cl : claims)
        j.push_back({{"figure", cl.figure},
                     {"claim", cl.what},
                     {"paper", cl.paper},
                     {"measured", cl.measured},
                     {"relative_difference", (cl.measured - cl.paper) / cl.paper},
                     {"kind", cl.upperBound ? "upper_bound"
                              : cl.absolute ? "fraction"
                                            : "value"},
                     {"holds", cl.ok()},
                     {"known_gap", cl.gap}});
    bool all = std::all_of(claims.begin(), claims.end(), [](const auto& cl) { return cl.ok(); });
    if (writeReport({{"claims", j}, {"all_hold", all}}, out + "/claims.json", json)) return 0;
    std::cout << fmt::format("{:7} {:84} {:>8} {:>9} {:>7}\n", "figure", "claim", "paper", "measured",
                             "diff");
    for (auto& cl : claims)
        std::cout << fmt::format("{:7} {:84} {:8.3f} {:9.3f} {:+6.1f}% {}\n", cl.figure, cl.what, cl.paper,
                                 cl.measured, 100 * (cl.measured - cl.paper) / cl.paper,
                                 cl.upperBound ? (cl.ok() ? "(bound: below)" : "(bound: not below)")
                                 : cl.ok()     ? ""
                                 : cl.absolute ? fmt::format("(outside {:g} points)", 100 * cl.tolerance)
                                               : fmt::format("(outside {:g}%){}", 100 * cl.tolerance,
                                                             cl.gap.empty() ? "" : "; known gap: " + cl.gap));
    return 0;
}

void printList() {
    for (auto& n : tb::experimentNames())
        std::cout << fmt::format("  {:10} {}\n", n, tb::loadExperiment(n).description);
    for (auto& n : sys::systemExperimentNames())
        std::cout << fmt::format("  {:10} {}\n", n, sys::systemExperimentDescription(n));
    std::cout << fmt::format("  {:10} {}\n", "claims",
                             "runs the experiments behind the paper's §5 numbers and compares");
    std::cout << fmt::format("  {:10} {}\n", "calibration",
                             "reruns the published simulator's reference points and compares");
}

// "[k/n] what (rate, ETA)" on stderr before each run, if progress is shown.
std::function<void(int, int, const std::string&)> progressOf(const Flags& f) {
    if (!f.showProgress()) return {};
    const auto start = std::chrono::steady_clock::now();
    return [start](int k, int n, const std::string& what) {
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double rate = k > 1 && s > 0 ? (k - 1) / s : 0;
        std::cerr << fmt::format(
            "[{}/{}] {}{}\n", k, n, what,
            rate > 0 ? fmt::format("  ({:.2f} runs/s, ETA {:.0f} s)", rate, (n - k + 1) / rate) : "");
    };
}

int runSystem(const std::string& name, tb::RunRequest base, std::string out, const Flags& f) {
    checkHwOption(base.hw);
    if (out.empty()) out = "runs/" + name;
    std::filesystem::create_directories(out);
    const auto progress = progressOf(f);
    const sys::SystemExperiment e = sys::runSystemExperiment(name, base, progress);
    const std::string csv = sys::systemExperimentCsv(e);
    std::ofstream(out + "/" + name + ".csv") << csv;
    if (!f.quiet) std::cerr << fmt::format("{}: {} rows -> {}/{}.csv\n", name, e.rows.size(), out, name);
    if (f.json)
        std::cout << nlohmann::json{{"experiment", name},
                                    {"backend", base.backend},
                                    {"hw", base.hw},
                                    {"rows", e.rows}}
                         .dump(2)
                  << "\n";
    else
        std::cout << csv;
    return 0;
}

} // namespace

int cmdExperiment(const Args& args) {
    Flags f;
    std::string shared, out;
    po::options_description opts("experiment options");
    addFlags(opts, f);
    opts.add_options()(
        "shared", po::value(&shared),
        "folder with the real traces and references (default: $STEPRDU_SHARED, else ../shared)")(
        "out", po::value(&out),
        "write <name>.csv, claims.json or calibration.json here (default: runs/<name>)");
    // The system-level experiments (sn40l_*) time programs of kernels on a backend and hardware of choice.
    tb::RunRequest system;
    system.hw = "sn40l";
    opts.add_options()("backend", po::value(&system.backend)->default_value(system.backend),
                       "sn40l_* experiments: roofline or cycle, what times each kernel")(
        "hw", po::value(&system.hw)->default_value(system.hw)->notifier(checkHwOption),
        "sn40l_* experiments: hardware preset or YAML file")(
        "set", po::value(&system.sets)->composing(), "sn40l_* experiments: hardware key=value (repeatable)");
    std::vector<std::string> positional;
    if (parseOrHelp("experiment", args, opts, &positional, f)) return 0;
    if (positional.size() != 1)
        throw BadInput("steprdu experiment: " +
                       expectedFound("an experiment name (or list)",
                                     positional.empty() ? "nothing" : "'" + positional[1] + "' after it"));
    const std::string& name = positional.front();
    if (name == "list") {
        printList();
        return 0;
    }
    if (sys::isSystemExperiment(name)) return runSystem(name, system, out, f);
    if (system.backend != "roofline" || system.hw != "sn40l" || !system.sets.empty())
        throw BadInput(fmt::format("steprdu experiment {}: --backend, --hw and --set apply to the sn40l_* "
                                   "experiments; a figure's spec names its own (configs/experiments/{}.yaml)",
                                   name, name));
    std::vector<std::string> names = name == "claims"        ? tb::claimExperiments()
                                     : name == "calibration" ? std::vector<std::string>{}
                                                             : std::vector<std::string>{name};
    bool needsShared = name == "claims" || name == "calibration";
    for (auto& n : names) // an unknown name fails here, before anything runs
        needsShared = tb::readsSharedData(tb::loadExperiment(n)) || needsShared;
    shared = sharedDir(shared);
    if (needsShared && !std::filesystem::is_directory(shared + "/traces"))
        throw BadInput(fmt::format("--shared {}: {}", shared,
                                   expectedFound("a folder holding traces/", "no such folder")));
    if (out.empty()) out = "runs/" + name;
    std::filesystem::create_directories(out);
    const auto progress = progressOf(f);
    if (name == "calibration") return printCalibration(tb::runCalibration(shared, progress), out, f.json);
    std::map<std::string, tb::ExperimentResult> results;
    for (auto& n : names) {
        auto def = tb::loadExperiment(n);
        auto t0 = std::chrono::steady_clock::now();
        results[n] = tb::runExperiment(def, shared, progress);
        std::ofstream(out + "/" + n + ".csv") << tb::experimentCsv(results[n]);
        if (!f.quiet)
            std::cerr << fmt::format(
                "{}: {} runs in {:.1f} s -> {}/{}.csv\n", n, results[n].rows.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), out, n);
    }
    if (name == "claims") return printClaims(results, out, f.json);
    if (f.json) {
        std::cout << nlohmann::json{{"experiment", name}, {"rows", results[name].rows}}.dump(2) << "\n";
    } else {
        std::cout << tb::experimentCsv(results[name]);
    }
    return 0;
}

} // namespace steprdu::cli
