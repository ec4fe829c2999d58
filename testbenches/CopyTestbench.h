#pragma once
#include "testbenches/Testbench.h"

namespace steprdu::tb {

// Copies `bytes` from one off-chip tensor to another through the chip, split into parallel streams of
// row-major tiles (load, then store): a calibration case for off-chip bandwidth.
class CopyTestbench : public Testbench {
  public:
    std::string name() const override { return "copy"; }
    std::string doc() const override {
        return "off-chip copy in parallel streams of tiles (load then store)";
    }
    std::vector<Knob> knobs() const override;
    Workload build(const Knobs& k, bool functional) const override;
};

} // namespace steprdu::tb
