#pragma once
#include "testbenches/Testbench.h"

namespace steprdu::tb {

// C = A x B with output-stationary tiling: for each output tile, the A tiles of its row and the B tiles of
// its column stream into one MapAccum that reduces over K: a calibration case for compute.
class GemmTestbench : public Testbench {
  public:
    std::string name() const override { return "gemm"; }
    std::string doc() const override {
        return "tiled matrix product C = A x B, reduced over K per output tile";
    }
    std::vector<Knob> knobs() const override;
    Workload build(const Knobs& k, bool functional) const override;
};

} // namespace steprdu::tb
