// steprdu: the command-line front end (docs/cli.md). Diagnostics go to stderr; with --json, stdout holds
// exactly one JSON object. Exit codes: 0 ok, 1 internal error, 2 bad input, 3 no progress, 4 limit reached.
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tools/Commands.h"
#include "tools/Options.h"
#include "util/Error.h"

using namespace steprdu;

namespace steprdu::cli {

// The commands, in the order of the usage text. A synopsis's continuation lines carry their own indentation.
const std::vector<Command>& commands() {
    static const std::vector<Command> table = {
        {"list",
         R"(list [--json] [--keys] [--stats]    testbenches (knobs, defaults, docs) and hardware presets;
                                              --keys: every hardware key; --stats: every cycle-backend stat)",
         cmdList},
        {"run",
         R"(run <testbench> [knob=value ...] [--backend roofline|interp|cycle] [--functional]
              [--hw <preset|file.yaml>] [--set <hw.key.path>=<value> ...] [--out DIR] [--json])",
         cmdRun},
        {"run-graph",
         R"(run-graph <graph.json> [run options]   run a graph file (graph.json of `run --out`, a difftest
                                              reproducer): `run graph file=<graph.json>`)",
         cmdRunGraph},
        {"analyze", R"(analyze <testbench> [knob=value ...] [--json]   symbolic metrics only, no simulation)",
         cmdAnalyze},
        {"experiment",
         R"(experiment list | <name> | claims | calibration [--shared DIR] [--out DIR] [--json]
                                              a paper figure as CSV; `claims`: the paper's numbers; `calibration`:
                                              the published simulator's reference points; sn40l_fig10 and
                                              sn40l_fig11 (programs of kernels) also take --backend, --hw, --set)",
         cmdExperiment},
        {"bench",
         R"(bench [--shared DIR] [--json]     simulated cycles (and events) per wall second on the standard
                                              cases: roofline and cycle backends, and a saturated sn40l mesh)",
         cmdBench},
        {"unit",
         R"(unit pcu matmul|simd, pmu stream, agcu read [key=value ...] [--hw ..] [--json]
                                              one unit alone with ideal inputs: cycles, utilization, stalls)",
         cmdUnit},
        {"meshtraffic",
         R"(meshtraffic --pattern uniform|transpose|bitcomp|hotspot --rate R [--packet-flits N] [--mesh KxK]
              [--cycles N] [--flit-level] [--json]   synthetic traffic on the RDN mesh)",
         cmdMeshTraffic},
        {"memtrace",
         R"(memtrace <trace.csv> | --generate sequential|random|mixed  --mem hbm2|hbm2e|ddr4|ddr5|sn40l|tiny
              [--set key=value ...] [--json]   a DRAM tier alone: bandwidth, latency, row hits)",
         cmdMemTrace},
        {"pnr",
         R"(pnr <testbench> [knob=value ...] [--hw ..] [--set ..] [--out DIR] [--json]
                                              place and route only: units, wirelength, hops, link loads;
                                              --out writes pnr.json and floorplan.svg)",
         cmdPnr},
        {"compare",
         R"(compare <testbench> [knob=value ...] [--hw ..] [--set ..] [--out DIR] [--json]
                                              roofline and cycle-level side by side: ratio, lower bounds,
                                              stalls by cause and unit kind, busiest links and channels)",
         cmdCompare},
        {"difftest",
         R"(difftest [--count N] [--seed S] [--backends interp,roofline,cycle] [--json]
                                              random STeP programs on every executor, checked against each
                                              other and the symbolic metrics; exit 1 on any failure)",
         cmdDiffTest},
        {"sweep",
         R"(sweep <spec.yaml|experiment> [-j N] [--out DIR] [--emit parallel|slurm]
                                              a sweep over knobs, hw.<key> and backend that resumes;
                                              DIR/results.csv (docs/sweeps.md))",
         cmdSweep},
        {"collect",
         R"(collect DIR                       merge a sweep's finished points into DIR/results.csv)",
         cmdCollect},
        {"plot",
         R"(plot DIR [--x AXIS] [--y COLUMN] [--out FILE] [--logy] [--json]
                                              a sweep's results.csv as a PNG: an axis against cycles, a
                                              series per backend and label, failed points marked)",
         cmdPlot},
        {"program",
         R"(program <program.yaml> [--backend roofline|cycle|compare] [--orchestration software|hardware|looping|all]
              [--hw ..] [--set ..] [--out DIR] [--json]   a program of kernels with its launches:
                                              program load, argument load, execute, host per kernel)",
         cmdProgram},
    };
    return table;
}

std::string usageText() {
    std::string s = "usage:\n";
    for (const auto& c : commands())
        s += fmt::format("  steprdu {}\n", c.synopsis);
    return s + "  steprdu <command> --help";
}

const Command& findCommand(const std::string& name) {
    std::vector<std::string> names;
    for (const auto& c : commands()) {
        if (name == c.name) return c;
        names.push_back(c.name);
    }
    const std::string suggestion = didYouMean(name, names), last = names.back();
    names.pop_back();
    throw BadInput(fmt::format(
        "steprdu: unknown command '{}'; {}{}", name,
        expectedFound(fmt::format("{} or {}", fmt::join(names, ", "), last), "'" + name + "'"), suggestion));
}

} // namespace steprdu::cli

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    try {
        if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
            std::cout << cli::usageText() << "\n";
            return args.empty() ? 2 : 0;
        }
        const cli::Command& command = cli::findCommand(args[0]);
        args.erase(args.begin());
        cli::setCommandLine(argc, argv);
        return command.run(args);
    } catch (const StepError& e) {
        std::cerr << "steprdu: error: " << e.what() << "\n";
        return static_cast<int>(e.code());
    } catch (const std::exception& e) {
        std::cerr << "steprdu: internal error: " << e.what() << " (please report)\n";
        return 1;
    }
}
