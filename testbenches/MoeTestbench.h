#pragma once
#include "testbenches/Testbench.h"

namespace steprdu::tb {

// A mixture-of-experts layer with SwiGLU experts (the paper's Figs 9, 10, 12, 13): static or dynamic tiling
// of each expert's tokens, and optionally fewer parallel regions than experts (configuration
// time-multiplexing).
class MoeTestbench : public Testbench {
  public:
    std::string name() const override { return "moe"; }
    std::string doc() const override {
        return "MoE layer with SwiGLU experts: static/dynamic tiling (Figs 9, 10), time-multiplexing (Figs "
               "12, 13)";
    }
    std::vector<Knob> knobs() const override;
    Workload build(const Knobs& k, bool functional) const override;
};

} // namespace steprdu::tb
