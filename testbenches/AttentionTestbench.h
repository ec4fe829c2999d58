#pragma once
#include "testbenches/Testbench.h"

namespace steprdu::tb {

// Decode attention with KV-cache append, one KV-head group per request (the paper's Figs 14, 15, 21): each
// request reads its K/V cache tiles, appends the new key/value row to the last tile and writes that tile
// back, and computes softmax(q K^T) V without max subtraction. Requests are split over parallel regions
// statically (interleaved, coarse) or dynamically (dispatch to the region that finished reading first).
class AttentionTestbench : public Testbench {
  public:
    std::string name() const override { return "attention"; }
    std::string doc() const override {
        return "decode attention with KV-cache append over parallel regions: coarse/interleaved/dynamic "
               "dispatch (Figs 14, 15, 21)";
    }
    std::vector<Knob> knobs() const override;
    Workload build(const Knobs& k, bool functional) const override;
};

} // namespace steprdu::tb
