#pragma once
// The calibration set of ../shared/reference (docs/roofline.md): the published STeP simulator's own cycle
// counts, rerun here on the roofline backend and the step_eval preset, plus published counts beyond that set
// (Qwen b64, MoE b1024, Fig 12, attention b16/b80). Shared by `steprdu experiment calibration` and the golden
// test, so both judge exactly the same numbers.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace steprdu::tb {

// The published Fig 12(b) runs (dynamic tiling) at R=128 and R=32; their ratio is the paper's "about 5%"
// time-multiplexing overhead.
inline constexpr double kPublishedFig12DynamicR128 = 713539, kPublishedFig12DynamicR32 = 754098;

struct CalibrationCheck {
    // "moe_mixtral_b64", "attention_b64", "fig21_b64_geomean", "moe_qwen_b64", "fig12_static",
    // "fig12_dynamic"
    std::string group;
    std::string what; // the point, e.g. "tile_n=16" or "stdev 1457 interleaved"
    double measured = 0, reference = 0;
    double tolerance = 0; // relative, the bar for this group
    double relative() const { return (measured - reference) / reference; }
    bool ok() const { return std::abs(relative()) <= tolerance; }
};

// Runs every point whose reference file is present under `sharedDir`; throws BadInput when none is.
// `progress` is called before each run with (index, total, description).
std::vector<CalibrationCheck>
runCalibration(const std::string& sharedDir,
               const std::function<void(int, int, const std::string&)>& progress = {});

} // namespace steprdu::tb
