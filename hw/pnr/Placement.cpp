#include "hw/pnr/Placement.h"

#include <set>

namespace steprdu::hw::pnr {

const StagePlacement* Placement::stage(int consumer, int port) const {
    for (const auto& s : stages)
        if (s.consumer == consumer && s.port == port) return &s;
    return nullptr;
}

std::vector<Site> Placement::unitsUsed() const {
    std::set<std::tuple<UnitKind, int, int, int>> seen;
    std::vector<Site> out;
    auto add = [&](const Site& s) {
        if (seen.insert({s.kind, s.row, s.col, s.agcu}).second) out.push_back(s);
    };
    for (const auto& op : ops)
        for (const auto& s : op.units)
            add(s);
    for (const auto& st : stages)
        for (const auto& s : st.pmus)
            add(s);
    return out;
}

} // namespace steprdu::hw::pnr
