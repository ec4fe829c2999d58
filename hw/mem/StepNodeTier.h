#pragma once
// Off-chip memory as the published STeP simulator models it (its HBM node, hw/mem/step_node/HbmNode.h),
// as a SystemC module behind the AGCUs: requests spread over channels that each accept one per init
// interval and answer after start-up + latency cycles. It does not model addresses: a tile's ranges only
// count as requests. The AGCUs are its clients; each may be given a window of requests in flight. Requests
// reach the node in RequestOrder's canonical order once no other can come for their issue cycle.
#include <functional>

#include <systemc>

#include "hw/config/HwConfig.h"
#include "hw/mem/OffChipMemory.h"
#include "hw/mem/RequestOrder.h"
#include "hw/mem/step_node/HbmNode.h"

namespace steprdu::hw {

// The node's parameters from the configuration's `hbm` section; `roofline.step_compat` turns on the
// published simulator's quirks. The roofline backend's memory is built from the same.
mem::HbmParams stepNodeParams(const HwConfig& cfg);

class StepNodeTier : public sc_core::sc_module, public OffChipMemory {
  public:
    SC_HAS_PROCESS(StepNodeTier);
    StepNodeTier(sc_core::sc_module_name name, const HwConfig& cfg);

    // The tile's requests (one per burst), `par` per cycle from cycle `issue` on.
    void submit(int client, int source, bool write, Cycle issue, std::vector<ByteRange> ranges,
                int burstBytes, int par, std::function<void(Cycle)> done) override;
    void setWindow(int client, int bursts, int burstBytes, int returnLatency) override {
        node_.setWindow(client, bursts, returnLatency);
    }
    double peakBytesPerCycle() const override { return cfg_.peakBytesPerCycle(); }
    void reportStats(StatsRegistry& stats, Cycle elapsed) const override;
    std::int64_t events() const override { return node_.stats().requests; }
    std::string path() const override { return name(); }

  private:
    void process();
    void schedule();

    HbmConfig cfg_;
    mem::HbmNode node_;
    sc_core::sc_event wake_;
    mem::RequestOrder waiting_;
    std::int64_t requests_[2] = {0, 0}; // read, write
};

} // namespace steprdu::hw
