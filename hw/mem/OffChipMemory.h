#pragma once
// What the AGCUs see of an off-chip memory tier: the published simulator's HBM node (StepNodeTier) or a DRAM
// model with controllers and devices (mem::DramTier). A tile's access arrives as the burst-aligned byte
// ranges the AGCU coalesced; a tier that does not model addresses only counts them.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hw/mem/dram/ByteRange.h"
#include "hw/sim/SimTime.h"
#include "hw/sim/Stats.h"

namespace steprdu::hw {

using mem::ByteRange;

class OffChipMemory {
  public:
    virtual ~OffChipMemory() = default;
    // A tile's bursts from `client` for `source` (the issuing operator), `par` bursts of `burstBytes` per
    // cycle from cycle `issue` on (at least the tier's lookahead after now); `done(at)` is called once the
    // cycle at which the last response is back at the tier's front end is known. Requests of one issue cycle
    // reach the tier's arbitration ordered by client, then source, then submission (RequestOrder.h).
    virtual void submit(int client, int source, bool write, Cycle issue, std::vector<ByteRange> ranges,
                        int burstBytes, int par, std::function<void(Cycle)> done) = 0;
    // At most `bursts` of `burstBytes` in flight for `client`; a slot comes back `returnLatency` cycles after
    // its response.
    virtual void setWindow(int client, int bursts, int burstBytes, int returnLatency) = 0;
    virtual double peakBytesPerCycle() const = 0;
    virtual void reportStats(StatsRegistry& stats, Cycle elapsed) const = 0;
    // Simulation events: requests served.
    virtual std::int64_t events() const = 0;
    // The module path stats use, e.g. "chip.hbm".
    virtual std::string path() const = 0;
};

} // namespace steprdu::hw
