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

int Placement::lanes(int op, int out) const {
    const auto& l = ops.at(op).lanes;
    return out < static_cast<int>(l.size()) ? l[out] : 1;
}

int Placement::lanesInto(const step::Graph& g, int consumer, int port) const {
    const auto in = g.op(consumer).inputs().at(port);
    return lanes(in.op, in.out);
}

int Placement::laneSource(int op, int out, int lane) const {
    int first = 0;
    for (int k = 0; k < out; ++k)
        first += lanes(op, k);
    return static_cast<int>((first + lane) % ops.at(op).units.size());
}

int Placement::laneSink(const step::Graph& g, int consumer, int port, int lane) const {
    int first = 0;
    for (int p = 0; p < port; ++p)
        first += lanesInto(g, consumer, p);
    return static_cast<int>((first + lane) % ops.at(consumer).units.size());
}

} // namespace steprdu::hw::pnr
