#include "hw/pnr/Netlist.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace steprdu::hw::pnr {

Netlist buildNetlist(const step::Graph& g, const HwConfig& cfg, const Placement& p, const VirtualUnits& v) {
    Netlist nl;
    nl.phases = v.phases;
    for (const auto& d : v.drain) {
        nl.drainCycles.push_back(d.cycles);
        nl.drainWindowBytes.push_back(d.windowBytes);
        nl.drainScale.push_back(d.scale);
    }
    const int n = g.numOps();
    std::map<std::pair<int, int>, int> bySite;   // (row, col) -> cell
    std::map<std::pair<int, int>, int> agcuCell; // (off-chip operator, its unit) -> cell
    auto cellAt = [&](const Site& s, int op, int unit) {
        if (s.kind == UnitKind::Agcu) {
            auto [it, added] =
                agcuCell.emplace(std::make_pair(v.origin[op], unit), static_cast<int>(nl.cells.size()));
            if (added) nl.cells.push_back({s});
            return it->second;
        }
        auto [it, added] = bySite.emplace(std::make_pair(s.row, s.col), static_cast<int>(nl.cells.size()));
        if (added) nl.cells.push_back({s});
        return it->second;
    };
    nl.opCells.resize(n);
    for (int i = 0; i < n; ++i)
        for (std::size_t u = 0; u < p.ops[i].units.size(); ++u)
            nl.opCells[i].push_back(cellAt(p.ops[i].units[u], i, static_cast<int>(u)));
    for (const auto& st : p.stages) {
        nl.stageCells.emplace_back();
        for (std::size_t u = 0; u < st.pmus.size(); ++u)
            nl.stageCells.back().push_back(cellAt(st.pmus[u], st.consumer, static_cast<int>(u)));
    }
    auto stageIndex = [&](int consumer, int port) {
        for (std::size_t k = 0; k < p.stages.size(); ++k)
            if (p.stages[k].consumer == consumer && p.stages[k].port == port) return static_cast<int>(k);
        return -1;
    };
    // A floor on weights: a tenth of a link, so that control-only nets still pull their ends together.
    const double floor = 0.1 * cfg.rdn.flit_bytes;
    // The units of a compute group, a buffer or a stage stay together (weighted below).
    auto group = [&](const std::vector<int>& cells, const std::string& name) {
        if (cells.size() < 2) return;
        Net gnet;
        gnet.cells = cells;
        gnet.group = true;
        gnet.name = name;
        gnet.weight = floor;
        nl.nets.push_back(gnet);
    };
    auto at = [](const std::vector<int>& cells, int lane) { return cells[lane % cells.size()]; };
    for (int i = 0; i < n; ++i) {
        const auto& op = g.op(i);
        const bool multicast = op.kind() == "Broadcast";
        std::vector<Net> lanesNets; // a Broadcast's multicast net per lane
        if (multicast) lanesNets.resize(p.lanes(i, 0));
        for (int k = 0; k < static_cast<int>(op.outputs().size()); ++k) {
            const int lanes = p.lanes(i, k);
            const double rate = v.rate(i, k) / lanes, weight = std::max(floor, rate);
            for (auto [c, port] : g.consumers({i, k})) {
                const int stage = stageIndex(c, port);
                for (int lane = 0; lane < lanes; ++lane) {
                    // A multicast's lane l leaves from the same unit for every output.
                    const int src = nl.opCells[i][p.laneSource(i, multicast ? 0 : k, lane)];
                    const int host = nl.opCells[c][p.laneSink(g, c, port, lane)];
                    const int first = stage >= 0 ? at(nl.stageCells[stage], lane) : host;
                    const std::string name = lanes > 1 ? fmt::format("{}[{}] lane {}", op.name(), k, lane)
                                                       : fmt::format("{}[{}]", op.name(), k);
                    if (first != src) {
                        if (multicast) {
                            Net& net = lanesNets[lane];
                            if (net.cells.empty()) {
                                net.cells.push_back(src);
                                net.name = name;
                                net.phase = v.phase[i];
                                net.op = i;
                            }
                            net.cells.push_back(first);
                            net.legs.push_back({c, port, 0, lane});
                            net.weight = std::max(net.weight, weight);
                            net.rate = std::max(net.rate, rate);
                        } else {
                            Net leg;
                            leg.cells = std::vector<int>{src, first};
                            leg.legs = {{c, port, 0, lane}};
                            leg.weight = weight;
                            leg.rate = rate;
                            leg.name = name;
                            leg.phase = v.phase[i];
                            leg.op = i;
                            nl.nets.push_back(leg);
                        }
                    }
                    if (stage >= 0 && first != host) { // the stage's own leg to its consumer
                        Net leg;
                        leg.cells = std::vector<int>{first, host};
                        leg.legs = {{c, port, 1, lane}};
                        leg.weight = weight;
                        leg.rate = rate;
                        leg.name = name + " stage";
                        leg.phase = v.phase[i];
                        leg.op = i;
                        nl.nets.push_back(leg);
                    }
                }
            }
        }
        for (auto& net : lanesNets)
            if (net.cells.size() > 1) nl.nets.push_back(std::move(net));
        if (!p.ops[i].folded && op.kind() != "Streamify") group(nl.opCells[i], op.name() + " group");
    }
    for (std::size_t k = 0; k < p.stages.size(); ++k)
        group(nl.stageCells[k], g.op(p.stages[k].consumer).name() + " stage group");
    // Groups pull as hard as the heaviest leg touching them.
    nl.netsOf.assign(nl.cells.size(), {});
    for (int k = 0; k < static_cast<int>(nl.nets.size()); ++k)
        for (int c : nl.nets[k].cells)
            if (nl.netsOf[c].empty() || nl.netsOf[c].back() != k) nl.netsOf[c].push_back(k);
    for (auto& net : nl.nets) {
        if (!net.group) continue;
        for (int c : net.cells)
            for (int k : nl.netsOf[c])
                if (!nl.nets[k].group) net.weight = std::max(net.weight, nl.nets[k].weight);
    }
    return nl;
}

void applyNetlist(const step::Graph& g, const Netlist& nl, Placement& p) {
    for (int i = 0; i < g.numOps(); ++i)
        for (std::size_t u = 0; u < p.ops[i].units.size(); ++u)
            p.ops[i].units[u] = nl.cells[nl.opCells[i][u]].site;
    for (std::size_t k = 0; k < p.stages.size(); ++k)
        for (std::size_t u = 0; u < p.stages[k].pmus.size(); ++u)
            p.stages[k].pmus[u] = nl.cells[nl.stageCells[k][u]].site;
}

} // namespace steprdu::hw::pnr
