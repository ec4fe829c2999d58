#pragma once
// Times the kernels of a program on one backend: each distinct kernel (testbench, knobs) is built, placed
// and run once, and every call of it reuses that run. Exact as long as a call's inputs arrive as the timed
// run's did: a kernel starts on an idle chip, its data in memory, which is how calls follow one another
// here (docs/system.md).
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "system/Program.h"
#include "testbenches/Runner.h"

namespace steprdu::sys {

struct KernelSpec {
    std::string name;
    std::string testbench;
    std::vector<std::string> knobs; // key=value
    // A knob that repeats the kernel's body inside one graph (e.g. decoder's `layers`): under kernel looping
    // its iterations are timed as T(2) - T(1) apart, at most T(1). Empty: an iteration takes a whole call's
    // cycles.
    std::string loopKnob;
    // A kernel built elsewhere (a graph from the Python front end) instead of a testbench's.
    std::shared_ptr<tb::Workload> workload;
};

class KernelTimer {
  public:
    // `base` carries the backend, hardware and --set of every run (its testbench and knobs are replaced);
    // `cfg` is that hardware, resolved.
    KernelTimer(tb::RunRequest base, hw::HwConfig cfg) : base_(std::move(base)), cfg_(std::move(cfg)) {}
    // The kernel timed (from the memo after its first time). `looping` also times its loop interval.
    Kernel time(const KernelSpec& spec, bool looping);
    int runs() const { return runs_; }

  private:
    nlohmann::json run(const KernelSpec& spec);
    // `units`: also the units the kernel occupies (on the roofline, from lowering).
    nlohmann::json run(const std::string& testbench, const std::vector<std::string>& knobs,
                       bool units = true);
    // Cycle backend: Program Load of `bytes` through `agcus` AGCUs simulated on the chip (memoized): its
    // cycles and the bytes the program tier read.
    std::pair<std::int64_t, std::int64_t> moveProgram(std::int64_t bytes, int agcus);
    tb::RunRequest base_;
    hw::HwConfig cfg_;
    std::map<std::string, nlohmann::json> memo_;
    std::map<std::pair<std::int64_t, int>, std::pair<std::int64_t, std::int64_t>> moves_;
    int runs_ = 0;
};

} // namespace steprdu::sys
