#pragma once
// How a stream's tokens travel from the producer's unit to the consumer's: on one unit, over the mesh, over
// a dedicated link, through a PMU stage buffer, or as one multicast to several consumers. A route tells the
// channel (or channels) when each token arrives and how long a credit takes to come back.
#include <cstdint>

#include "hw/sim/SimTime.h"

namespace steprdu::hw {

class TokenChannel;

class StreamRoute {
  public:
    virtual ~StreamRoute() = default;
    // Carries token `seq` of `ch`, `bytes` long if it is data (control tokens ride the control fabric),
    // handed over at cycle `at` (>= now), its last byte no earlier than `tailReady`. The route calls
    // ch.arrived(seq, head, tail) once both are known.
    virtual void carry(TokenChannel& ch, std::uint64_t seq, std::int64_t bytes, bool data, Cycle at,
                       Cycle tailReady) = 0;
    // Cycles between the consumer's read of an element and the producer seeing the free slot.
    virtual Cycle creditLatency(const TokenChannel& ch) const = 0;
};

} // namespace steprdu::hw
