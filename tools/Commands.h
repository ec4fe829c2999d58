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

} // namespace steprdu::cli
