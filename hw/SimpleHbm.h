#pragma once
// Off-chip memory as the published STeP simulator models it (its HBM node, models/roofline/HbmNode.h),
// as a SystemC module behind the AGCUs: requests spread over channels that each accept one per init
// interval and answer after start-up + latency cycles. The AGCUs are its clients; each may be given a
// window of requests in flight.
#include <functional>

#include <systemc>

#include "hw/HwConfig.h"
#include "hw/SimTime.h"
#include "hw/Stats.h"
#include "models/roofline/HbmNode.h"

namespace steprdu::hw {

class SimpleHbm : public sc_core::sc_module {
  public:
    SC_HAS_PROCESS(SimpleHbm);
    SimpleHbm(sc_core::sc_module_name name, const HbmConfig& cfg, bool stepCompat);

    // A tile of `requests` requests from `client`, `par` per cycle from cycle `issue` on; `done(at)` once the
    // last response is back at the front end.
    void submit(int client, bool write, Cycle issue, std::int64_t requests, int par,
                std::function<void(Cycle)> done);
    void setWindow(int client, int requests, int returnLatency) {
        node_.setWindow(client, requests, returnLatency);
    }
    double peakBytesPerCycle() const { return cfg_.peakBytesPerCycle(); }
    void reportStats(StatsRegistry& stats) const;

  private:
    void process();

    HbmConfig cfg_;
    roofline::HbmNode node_;
    sc_core::sc_event wake_;
};

} // namespace steprdu::hw
