#include "hw/pnr/CongestionRepair.h"

#include <algorithm>

namespace steprdu::hw::pnr {

namespace {

constexpr int kRadius = 3;     // switches a cell may move in either direction
constexpr int kMaxMoves = 256; // a bound on the work, far above what the paper's graphs need
constexpr double kEps = 1e-9;
// Links loaded less than half again their bandwidth are left alone: rates are averages over a phase, and
// moving a unit for a trickle beside a full stream, or for a quarter more on a link inside a loop of streams
// that wait for each other (attention's K tiles and the queries expanded over them), costs more in hops
// than it saves (Qwen's performance-matched decoder placed from seed 2: 1.66 M cycles with such moves, 1.54 M
// without).
constexpr double kWorthRepair = 0.5;

bool routable(const Net& n) {
    return !n.group && !n.legs.empty();
}

} // namespace

CongestionRepair::CongestionRepair(const HwConfig& cfg, Netlist& nl, const Routing& routing)
    : cfg_(cfg), nl_(nl), layout_(cfg.chip), rows_(layout_.rows()), cols_(layout_.cols()),
      capacity_(routing.capacity), load_(static_cast<int>(routing.planned.size()), nl.phases) {
    tree_.assign(nl_.nets.size(), {});
    mark_.assign(routing.planned.size(), 0);
    for (const auto& leg : routing.legs) {
        ++stamp_;
        auto& t = tree_[leg.net];
        for (int l : t)
            mark_[l] = stamp_;
        for (int l : leg.links)
            if (mark_[l] != stamp_) {
                mark_[l] = stamp_;
                t.push_back(l);
            }
    }
    for (std::size_t k = 0; k < tree_.size(); ++k)
        for (int l : tree_[k])
            load_.add(l, nl_.nets[k].phase, nl_.nets[k].rate);
    siteCell_.assign(static_cast<std::size_t>(rows_) * cols_, -1);
    for (int i = 0; i < static_cast<int>(nl_.cells.size()); ++i) {
        const Site& s = nl_.cells[i].site;
        if (s.kind != UnitKind::Agcu) siteCell_[s.row * cols_ + s.col] = i;
    }
}

double CongestionRepair::penalty(double load) const {
    const double over = load / capacity_ - 1;
    return over > kEps ? over * over : 0.0;
}

void CongestionRepair::apply(int net, double sign) {
    const double rate = sign * nl_.nets[net].rate;
    const int b = load_.buckets();
    for (int l : tree_[net]) {
        if (mark_[l] != stamp_) {
            mark_[l] = stamp_;
            touchedLinks_.push_back(l);
            saved_.insert(saved_.end(), load_.at(l), load_.at(l) + b);
        }
        load_.add(l, nl_.nets[net].phase, rate);
    }
}

void CongestionRepair::route(int net) {
    const Net& n = nl_.nets[net];
    auto pos = [&](int cell) { return std::make_pair(nl_.cells[cell].site.row, nl_.cells[cell].site.col); };
    const auto [sr, sc] = pos(n.cells[0]);
    auto& tree = tree_[net];
    tree.clear();
    auto inTree = [&](int l) { return std::find(tree.begin(), tree.end(), l) != tree.end(); };
    for (int s : sinksNearestFirst(nl_, n)) {
        const auto [tr, tc] = pos(n.cells[s + 1]);
        const auto options = legOptions(cfg_.rdn.routing, sr, sc, tr, tc);
        std::vector<int> best;
        double bestCost = 0;
        for (int o = 0; o < 2; ++o) {
            if (!options[o]) continue;
            std::vector<int> path = legLinks(cols_, sr, sc, tr, tc, o == 1);
            double cost = 0;
            for (int l : path)
                if (!inTree(l)) cost += penalty(load_.peakWith(l, n.phase, n.rate)) - penalty(load_.peak(l));
            if (best.empty() || cost < bestCost - kEps) {
                bestCost = cost;
                best = std::move(path);
            }
        }
        for (int l : best)
            if (!inTree(l)) tree.push_back(l);
    }
}

double CongestionRepair::tryMove(int cell, int row, int col, bool keep) {
    ++stamp_;
    touchedLinks_.clear();
    saved_.clear();
    const int other = siteCell_[row * cols_ + col];
    Site& a = nl_.cells[cell].site;
    const Site from = a;
    std::vector<int> nets;
    for (int c : {cell, other})
        if (c >= 0)
            for (int k : nl_.netsOf[c])
                if (routable(nl_.nets[k]) && std::find(nets.begin(), nets.end(), k) == nets.end())
                    nets.push_back(k);
    std::vector<std::vector<int>> oldTrees;
    for (int k : nets) {
        oldTrees.push_back(tree_[k]);
        apply(k, -1);
    }
    a.row = row;
    a.col = col;
    if (other >= 0) {
        nl_.cells[other].site.row = from.row;
        nl_.cells[other].site.col = from.col;
    }
    for (int k : nets) {
        route(k);
        apply(k, 1);
    }
    const int b = load_.buckets();
    double delta = 0;
    for (std::size_t i = 0; i < touchedLinks_.size(); ++i)
        delta += penalty(load_.peak(touchedLinks_[i])) - penalty(load_.peakOf(&saved_[i * b], -1, 0));
    if (keep) {
        siteCell_[from.row * cols_ + from.col] = other;
        siteCell_[row * cols_ + col] = cell;
        return delta;
    }
    for (std::size_t i = 0; i < touchedLinks_.size(); ++i)
        std::copy(&saved_[i * b], &saved_[i * b] + b, load_.at(touchedLinks_[i]));
    for (std::size_t i = 0; i < nets.size(); ++i)
        tree_[nets[i]] = std::move(oldTrees[i]);
    a = from;
    if (other >= 0) {
        nl_.cells[other].site.row = row;
        nl_.cells[other].site.col = col;
    }
    return delta;
}

RepairStats CongestionRepair::run() {
    RepairStats st;
    const int links = static_cast<int>(mark_.size());
    auto total = [&] {
        double sum = 0;
        for (int l = 0; l < links; ++l)
            sum += penalty(load_.peak(l));
        return sum;
    };
    st.before = total();
    std::vector<char> hopeless(links, 0);
    while (st.moves < kMaxMoves) {
        int worst = -1;
        double worstLoad = 0;
        for (int l = 0; l < links; ++l)
            if (const double peak = load_.peak(l);
                !hopeless[l] && peak >= (1 + kWorthRepair) * capacity_ - kEps && peak > worstLoad) {
                worst = l;
                worstLoad = peak;
            }
        if (worst < 0) break;
        // The PCUs and PMUs at the ends of the streams on it.
        std::vector<int> cells;
        for (int k = 0; k < static_cast<int>(tree_.size()); ++k) {
            if (std::find(tree_[k].begin(), tree_[k].end(), worst) == tree_[k].end()) continue;
            for (int c : nl_.nets[k].cells)
                if (nl_.cells[c].site.kind != UnitKind::Agcu &&
                    std::find(cells.begin(), cells.end(), c) == cells.end())
                    cells.push_back(c);
        }
        double best = -kEps;
        int bestCell = -1, bestRow = 0, bestCol = 0;
        for (int c : cells) {
            const Site s = nl_.cells[c].site;
            for (int r = std::max(0, s.row - kRadius); r <= std::min(rows_ - 1, s.row + kRadius); ++r)
                for (int col = std::max(0, s.col - kRadius); col <= std::min(cols_ - 1, s.col + kRadius);
                     ++col) {
                    if ((r == s.row && col == s.col) || layout_.siteKind(r, col) != s.kind) continue;
                    const double d = tryMove(c, r, col, false);
                    ++st.evaluated;
                    if (d < best) {
                        best = d;
                        bestCell = c;
                        bestRow = r;
                        bestCol = col;
                    }
                }
        }
        if (bestCell < 0) {
            hopeless[worst] = 1;
            continue;
        }
        tryMove(bestCell, bestRow, bestCol, true);
        ++st.moves;
    }
    st.after = total();
    return st;
}

} // namespace steprdu::hw::pnr
