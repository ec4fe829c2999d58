#include "hw/pnr/Placement.h"

namespace steprdu::hw::pnr {

const StagePlacement* Placement::stage(int consumer, int port) const {
    for (const auto& s : stages)
        if (s.consumer == consumer && s.port == port) return &s;
    return nullptr;
}

} // namespace steprdu::hw::pnr
