#pragma once
// Commands that live in their own files; each parses its own options and returns the exit code.
#include <string>
#include <vector>

namespace steprdu::cli {

// steprdu unit pcu matmul|simd, pmu stream, agcu read: one unit alone with ideal inputs.
int cmdUnit(const std::vector<std::string>& args);
// steprdu meshtraffic: synthetic traffic on the RDN mesh.
int cmdMeshTraffic(const std::vector<std::string>& args);
// steprdu memtrace: a DRAM tier alone, driven by a request trace.
int cmdMemTrace(const std::vector<std::string>& args);
// steprdu pnr: place and route a testbench's graph, without simulating it.
int cmdPnr(const std::vector<std::string>& args);
// steprdu compare: the roofline and the cycle backend on the same graph, side by side.
int cmdCompare(const std::vector<std::string>& args);
// steprdu difftest: random programs on every executor, checked against each other and the metrics.
int cmdDiffTest(const std::vector<std::string>& args);
// steprdu sweep / collect: hardware and workload sweeps that resume, run locally or emit job files.
int cmdSweep(const std::vector<std::string>& args);
int cmdCollect(const std::vector<std::string>& args);

} // namespace steprdu::cli
