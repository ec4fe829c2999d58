#pragma once
// The SN40L paper's system-level figures as programs of kernels on one socket (docs/system.md):
//   sn40l_fig10: Llama2-7B decode at a 4K context, batch 1 and 8: unfused + software orchestration, fused +
//                software, fused + hardware, fused + kernel looping; tokens/s, HBM bandwidth, the time
//                split; then the host round trip swept, which moves the regimes.
//   sn40l_fig11: kernel calls of the unfused and fused programs.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "testbenches/Runner.h"

namespace steprdu::sys {

struct SystemExperiment {
    std::string name, description;
    std::vector<std::string> columns;
    std::vector<nlohmann::json> rows;
};

const std::vector<std::string>& systemExperimentNames();
bool isSystemExperiment(const std::string& name);
std::string systemExperimentDescription(const std::string& name);
// `base` carries the backend (roofline or cycle), the hardware (default sn40l) and --set of every kernel.
// `progress` gets (done, total, what) before each program is timed.
SystemExperiment runSystemExperiment(const std::string& name, const tb::RunRequest& base,
                                     const std::function<void(int, int, const std::string&)>& progress = {});
std::string systemExperimentCsv(const SystemExperiment& e);

} // namespace steprdu::sys
