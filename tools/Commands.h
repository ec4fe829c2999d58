#pragma once
// The steprdu commands. One table (tools/steprdu.cpp) names each command, gives its lines of the usage text
// and the function that runs it; the usage text, the dispatch and the unknown-command message all come from
// it. A command parses its own options (tools/Options.h) and returns the exit code.
//
// Adding a command: write tools/<Name>Command.cpp defining its function (declared below) and add its row to
// the table. tools/CMakeLists.txt picks up every tools/*Command.cpp.
#include <string>
#include <vector>

namespace steprdu::cli {

using Args = std::vector<std::string>;

struct Command {
    const char* name;
    // Its lines of the usage text, after "  steprdu ": the synopsis, then a short description aligned at
    // column 46 on the same or the following lines (which carry their own indentation).
    const char* synopsis;
    int (*run)(const Args& args);
};

// The table, in the order of the usage text.
const std::vector<Command>& commands();
// The command named `name`; throws BadInput with the list of commands (and the nearest one) otherwise.
const Command& findCommand(const std::string& name);
// "usage:" and every command's synopsis.
std::string usageText();

// steprdu list: testbenches, knobs, hardware presets (the default marked), hardware keys, stats.
int cmdList(const Args& args);
// steprdu run: one testbench on one backend; run-graph: `run graph file=<graph.json>`.
int cmdRun(const Args& args);
int cmdRunGraph(const Args& args);
// steprdu analyze: symbolic metrics only.
int cmdAnalyze(const Args& args);
// steprdu experiment: a paper figure, the paper's claims or the calibration against the published simulator.
int cmdExperiment(const Args& args);
// steprdu bench: simulated cycles per wall second on the standard cases.
int cmdBench(const Args& args);
// steprdu unit pcu matmul|simd, pmu stream, agcu read: one unit alone with ideal inputs.
int cmdUnit(const Args& args);
// steprdu meshtraffic: synthetic traffic on the RDN mesh.
int cmdMeshTraffic(const Args& args);
// steprdu memtrace: a DRAM tier alone, driven by a request trace.
int cmdMemTrace(const Args& args);
// steprdu pnr: place and route a testbench's graph, without simulating it.
int cmdPnr(const Args& args);
// steprdu compare: the roofline and the cycle backend on the same graph, side by side.
int cmdCompare(const Args& args);
// steprdu difftest: random programs on every executor, checked against each other and the metrics.
int cmdDiffTest(const Args& args);
// steprdu sweep / collect: hardware and workload sweeps that resume, run locally or emit job files.
int cmdSweep(const Args& args);
int cmdCollect(const Args& args);
// steprdu plot: a sweep directory's results as a PNG.
int cmdPlot(const Args& args);
// steprdu program: a program of kernels, timed with its launches under each orchestration.
int cmdProgram(const Args& args);

} // namespace steprdu::cli
