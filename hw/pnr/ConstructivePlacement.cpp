#include "hw/pnr/ConstructivePlacement.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "hw/arch/MeshPath.h"
#include "util/Error.h"

namespace steprdu::hw::pnr {

namespace {

// Sites of one kind die by die and tile by tile, within a tile in blocks of 4 x 4 (8 PCUs and 8 PMUs of the
// checkerboard) taken in serpentine order, so that a compute group and the sites taken next to it are close
// and a graph stays on one die while it fits there.
std::vector<Site> siteOrder(const ChipLayout& L, const ChipConfig& chip, UnitKind k) {
    constexpr int kBlock = 4;
    std::vector<Site> out;
    auto blocks = [&](int r0, int c0) {
        const int blockRows = (chip.rows + kBlock - 1) / kBlock,
                  blockCols = (chip.cols + kBlock - 1) / kBlock;
        for (int br = 0; br < blockRows; ++br)
            for (int i = 0; i < blockCols; ++i) {
                int bc = br % 2 == 0 ? i : blockCols - 1 - i;
                for (int r = r0 + br * kBlock; r < r0 + std::min(chip.rows, (br + 1) * kBlock); ++r)
                    for (int c = c0 + bc * kBlock; c < c0 + std::min(chip.cols, (bc + 1) * kBlock); ++c)
                        if (L.siteKind(r, c) == k) out.push_back({k, r, c, -1});
            }
    };
    for (int d = 0; d < chip.dies; ++d)
        for (int tr = 0; tr < chip.die_tile_rows; ++tr)
            for (int i = 0; i < chip.die_tile_cols; ++i) {
                int tc = tr % 2 == 0 ? i : chip.die_tile_cols - 1 - i;
                blocks(tr * chip.rows, (d * chip.die_tile_cols + tc) * chip.cols);
            }
    return out;
}

// The placed sites an off-chip operator exchanges data with, one per lane: its consumer's stage buffer or
// units (through folded operators), else its producer's units; empty if neither is placed.
std::vector<Site> peers(const step::Graph& g, const VirtualUnits& v, const Placement& pl, int op) {
    int cur = op;
    for (int guard = 0; guard < g.numOps(); ++guard) {
        if (g.op(cur).outputs().empty()) break;
        auto consumers = g.consumers({cur, 0});
        if (consumers.empty()) break;
        auto [c, port] = consumers.front();
        if (const StagePlacement* s = pl.stage(c, port)) return s->pmus;
        if (!pl.ops[c].units.empty()) return pl.ops[c].units;
        if (v.role[c] != Role::Folded) break;
        cur = c;
    }
    for (const auto& in : g.op(op).inputs()) {
        int src = v.origin[in.op];
        if (!pl.ops[src].units.empty()) return pl.ops[src].units;
    }
    return {};
}

} // namespace

Placement placeConstructive(const step::Graph& g, const HwConfig& cfg, const VirtualUnits& v,
                            const step::Bindings& bindings) {
    const ChipLayout L(cfg.chip);
    const int n = g.numOps();
    const auto& pcus = v.pcus;
    const auto& pmus = v.pmus;
    const auto& stagePmus = v.stagePmus;
    Placement pl;
    pl.ops.resize(n);
    const auto pcuSites = siteOrder(L, cfg.chip, UnitKind::Pcu),
               pmuSites = siteOrder(L, cfg.chip, UnitKind::Pmu);
    std::size_t nextPcu = 0, nextPmu = 0;
    auto take = [&](const std::vector<Site>& sites, std::size_t& next, int count) {
        if (next + count > sites.size())
            throw BadInput(fmt::format("placement: the graph needs more {}s than the grid of '{}' has ({})",
                                       &sites == &pcuSites ? "PCU" : "PMU", cfg.name, sites.size()));
        std::vector<Site> out(sites.begin() + next, sites.begin() + next + count);
        next += count;
        return out;
    };
    for (int i = 0; i < n; ++i) {
        const auto& op = g.op(i);
        pl.ops[i].lanes = v.lanes[i];
        for (double e : v.outputElements[i])
            pl.ops[i].elementRates.push_back(e / v.opCycles[i]);
        switch (v.role[i]) {
        case Role::Agcu: // once its consumers are placed
            break;
        case Role::Pcu:
            for (std::size_t p = 0; p < stagePmus[i].size(); ++p)
                if (stagePmus[i][p])
                    pl.stages.push_back({i, static_cast<int>(p), take(pmuSites, nextPmu, stagePmus[i][p])});
            pl.ops[i].units = take(pcuSites, nextPcu, pcus[i]);
            break;
        case Role::Pmu:
            if (op.kind() == "Streamify") { // reads the buffer its Bufferize filled, on that PMU
                int src = v.origin[op.inputs()[0].op];
                if (g.op(src).kind() == "Bufferize" && !pl.ops[src].units.empty()) {
                    pl.ops[i].units = pl.ops[src].units;
                    break;
                }
                pl.ops[i].units = take(pmuSites, nextPmu, 1);
                break;
            }
            pl.ops[i].units = take(pmuSites, nextPmu, pmus[i]);
            break;
        case Role::Folded:
            pl.ops[i].folded = true;
            break;
        }
    }
    // An operator sharing a PCU (`shrink`) runs on its host's.
    for (int i = 0; i < n; ++i)
        if (v.sharesWith[i] >= 0) {
            pl.ops[i].units = pl.ops[v.sharesWith[i]].units;
            pl.ops[i].timeShared = pl.ops[v.sharesWith[i]].timeShared = true;
        }
    assignAgcus(g, cfg, v, bindings, pl);
    // Folded operators run on their producer's unit (resolved last: a feedback edge may point forward).
    for (int i = 0; i < n; ++i) {
        if (!pl.ops[i].folded) continue;
        int src = v.origin[i];
        if (src == i || pl.ops[src].units.empty()) // nothing feeds it: a unit of its own
            pl.ops[i].units = take(pcuSites, nextPcu, 1);
        else
            pl.ops[i].units = pl.ops[src].units;
    }
    return pl;
}

void assignAgcus(const step::Graph& g, const HwConfig& cfg, const VirtualUnits& v,
                 const step::Bindings& bindings, Placement& pl) {
    const ChipLayout L(cfg.chip);
    const int n = g.numOps();
    const int agcus = static_cast<int>(L.agcus().size());
    // Off-chip operators and Sources: the AGCU from which their data would arrive soonest. Each candidate is
    // scored by the cycles already booked on its port plus the operator's own (its off-chip bytes at the flit
    // width), the mean cycles booked on the links of its dimension-order route, and two cycles per hop;
    // crossing between dies counts as sharing the port, since a row has one link across.
    std::vector<double> portCycles(agcus, 0.0);
    std::map<std::pair<std::pair<int, int>, int>, double> linkCycles; // (switch, direction) -> cycles booked
    auto route = [&](int r, int c, int tr, int tc) {                  // as RdnMesh routes, in dimension order
        std::vector<std::pair<std::pair<int, int>, int>> links;
        for (const MeshHop& h : meshPath(r, c, tr, tc, cfg.rdn.routing == RoutePolicy::Yx))
            links.push_back({{h.row, h.col}, h.dir});
        return links;
    };
    for (int i = 0; i < n; ++i) {
        if (v.role[i] != Role::Agcu) continue;
        const std::vector<Site> targets = peers(g, v, pl, i);
        const int count = std::min(agcus, std::max(1, v.agcus[i]));
        // Each AGCU of a striped operator carries its share of the bytes to its own lane's end.
        const double cycles = static_cast<double>(g.op(i).offChipBytes().eval(bindings).value_or(0)) /
                              cfg.rdn.flit_bytes / count;
        pl.ops[i].units.clear();
        std::vector<bool> taken(agcus, false);
        for (int u = 0; u < count; ++u) {
            const Site* target = targets.empty() ? nullptr : &targets[u % targets.size()];
            int best = -1;
            double bestCost = 0;
            for (int a = 0; a < agcus; ++a) {
                if (taken[a]) continue;
                const auto& site = L.agcus()[a];
                double d = portCycles[a] + cycles;
                if (target) {
                    double booked = 0, hops = 0;
                    for (const auto& l : route(site.row, site.col, target->row, target->col)) {
                        auto it = linkCycles.find(l);
                        if (it != linkCycles.end()) booked += it->second;
                        ++hops;
                    }
                    d += (hops ? booked / hops : 0) + 2.0 * hops;
                    if (L.die(site.col) != L.die(target->col)) d += cycles;
                }
                if (best < 0 || d < bestCost) {
                    best = a;
                    bestCost = d;
                }
            }
            if (target)
                for (const auto& l :
                     route(L.agcus()[best].row, L.agcus()[best].col, target->row, target->col))
                    linkCycles[l] += cycles;
            portCycles[best] += cycles;
            taken[best] = true;
            pl.ops[i].units.push_back({UnitKind::Agcu, L.agcus()[best].row, L.agcus()[best].col, best});
        }
    }
    // Folded operators on an off-chip operator's AGCU follow it.
    for (int i = 0; i < n; ++i)
        if (pl.ops[i].folded && v.origin[i] != i && v.role[v.origin[i]] == Role::Agcu)
            pl.ops[i].units = pl.ops[v.origin[i]].units;
}

} // namespace steprdu::hw::pnr
