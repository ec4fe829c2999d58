#pragma once
#include "testbenches/Testbench.h"

namespace steprdu::tb {

// One SwiGLU layer (the paper's Fig 8 HDL-validation workload): gate/up GEMMs with MN tiling, SiLU, Mul,
// and a down projection tiled over the intermediate dimension.
class SwigluTestbench : public Testbench {
  public:
    std::string name() const override { return "swiglu"; }
    std::string doc() const override { return "SwiGLU layer of the paper's Fig 8 (HDL validation)"; }
    std::vector<Knob> knobs() const override;
    Workload build(const Knobs& k, bool functional) const override;
};

} // namespace steprdu::tb
