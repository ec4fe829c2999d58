#include "hw/pnr/PlacementAnnealer.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace steprdu::hw::pnr {

PlacementAnnealer::PlacementAnnealer(const HwConfig& cfg, Netlist& nl)
    : cfg_(cfg), layout_(cfg.chip), nl_(nl), lambdaCong_(cfg.pnr.congestion_weight),
      state_(0x9e3779b97f4a7c15ULL ^ static_cast<std::uint64_t>(cfg.pnr.seed)) {
    binRows_ = (layout_.rows() + binSize_ - 1) / binSize_;
    binCols_ = (layout_.cols() + binSize_ - 1) / binSize_;
    // A bin holds two links' worth of traffic per switch in it.
    for (int br = 0; br < binRows_; ++br)
        for (int bc = 0; bc < binCols_; ++bc)
            binCapacity_.push_back(2.0 * (std::min(layout_.rows(), (br + 1) * binSize_) - br * binSize_) *
                                   (std::min(layout_.cols(), (bc + 1) * binSize_) - bc * binSize_));
    rebuild();
    mark_.assign(nl_.nets.size(), 0);
}

void PlacementAnnealer::rebuild() {
    siteCell_.assign(layout_.numSites(), -1);
    movable_.clear();
    agcuCells_.clear();
    phases_ = std::max<int>(1, static_cast<int>(nl_.drainScale.size()));
    link_ = agcuLinkBytesPerCycle(cfg_);
    window_.assign(phases_, double(cfg_.agcu.max_outstanding) * cfg_.agcu.burst_bytes /
                                std::max(1.0, agcuIdleRoundTripCycles(cfg_)));
    for (int p = 0; p < static_cast<int>(nl_.drainWindowBytes.size()); ++p)
        window_[p] = nl_.drainWindowBytes[p];
    // A phase weighs in the port cost as its share of the longest phase's cycles: an excess over a long
    // phase stretches the run more than the same excess over a short one.
    phaseWeight_.assign(phases_, 1.0);
    if (static_cast<int>(nl_.drainCycles.size()) == phases_) {
        const double longest = *std::max_element(nl_.drainCycles.begin(), nl_.drainCycles.end());
        if (longest > 0)
            for (int p = 0; p < phases_; ++p)
                phaseWeight_[p] = nl_.drainCycles[p] / longest;
    }
    cellOut_.assign(nl_.cells.size() * phases_, 0.0);
    cellIn_.assign(nl_.cells.size() * phases_, 0.0);
    portOut_.assign(layout_.agcus().size() * phases_, 0.0);
    portIn_.assign(layout_.agcus().size() * phases_, 0.0);
    agcuHosts_.assign(layout_.agcus().size(), {});
    agcuOp_.assign(nl_.cells.size(), -1);
    for (int op = 0; op < static_cast<int>(nl_.opCells.size()); ++op)
        for (int c : nl_.opCells[op])
            if (nl_.cells[c].site.kind == UnitKind::Agcu && agcuOp_[c] < 0) agcuOp_[c] = op;
    for (int i = 0; i < static_cast<int>(nl_.cells.size()); ++i) {
        const Site& s = nl_.cells[i].site;
        if (s.kind == UnitKind::Agcu) {
            agcuCells_.push_back(i);
            double out = 0, in = 0;
            for (int k : nl_.netsOf[i]) {
                const Net& net = nl_.nets[k];
                if (net.group) continue;
                (net.cells.front() == i ? out : in) += net.rate * double(net.cells.size() - 1);
            }
            // A cell asks of its port, a link at most, what its lanes do: in each phase of the drain its
            // operator's rate there, else the planned rate with lanes' headroom.
            for (int p = 0; p < phases_; ++p) {
                const bool drained = !nl_.drainScale.empty() && agcuOp_[i] >= 0;
                const double scale = drained ? nl_.drainScale[p][agcuOp_[i]] : cfg_.pnr.lane_headroom;
                cellOut_[i * phases_ + p] = std::min(link_, scale * out);
                cellIn_[i * phases_ + p] = std::min(link_, scale * in);
                portOut_[s.agcu * phases_ + p] += cellOut_[i * phases_ + p];
                portIn_[s.agcu * phases_ + p] += cellIn_[i * phases_ + p];
            }
            agcuHosts_[s.agcu].push_back(i);
            continue;
        }
        siteCell_[s.row * layout_.cols() + s.col] = i;
        movable_.push_back(i);
    }
    demand_.assign(binRows_ * binCols_, 0.0);
    binMark_.assign(demand_.size(), binStamp_); // marked: this spreading saves nothing
    box_.clear();
    netCost_.clear();
    linkWeight_.clear();
    for (const Net& net : nl_.nets)
        linkWeight_.push_back(net.weight / cfg_.rdn.flit_bytes);
    for (int k = 0; k < static_cast<int>(nl_.nets.size()); ++k) {
        box_.push_back(boxOf(k));
        netCost_.push_back(netCost(box_.back(), k));
        if (!nl_.nets[k].group) spread(box_.back(), k, 1);
    }
}

std::uint64_t PlacementAnnealer::below(std::uint64_t n) {
    // splitmix64: the same sequence on every platform.
    state_ += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (z ^ (z >> 31)) % n;
}

double PlacementAnnealer::uniform() {
    return static_cast<double>(below(std::uint64_t(1) << 53)) / static_cast<double>(std::uint64_t(1) << 53);
}

PlacementAnnealer::Box PlacementAnnealer::boxOf(int net) const {
    Box b{1 << 30, -1, 1 << 30, -1};
    for (int c : nl_.nets[net].cells) {
        const Site& s = nl_.cells[c].site;
        b.r0 = std::min(b.r0, s.row);
        b.r1 = std::max(b.r1, s.row);
        b.c0 = std::min(b.c0, s.col);
        b.c1 = std::max(b.c1, s.col);
    }
    return b;
}

double PlacementAnnealer::netCost(const Box& b, int net) const {
    const double w = linkWeight_[net];
    const int crossings = layout_.die(b.c1) - layout_.die(b.c0);
    return w * ((b.r1 - b.r0) + (b.c1 - b.c0) + d2d_ * crossings);
}

void PlacementAnnealer::spread(const Box& b, int net, double sign) {
    const double w = linkWeight_[net];
    const int area = (b.r1 - b.r0 + 1) * (b.c1 - b.c0 + 1);
    const double density = sign * w * ((b.r1 - b.r0) + (b.c1 - b.c0) + 1) / area;
    // The box's columns in each bin column, once per call (this loop is most of the annealer's time); each
    // bin still gets density * rows * cols, evaluated in that order.
    const int bc0 = b.c0 / binSize_, bc1 = b.c1 / binSize_;
    binColumns_.clear();
    for (int bc = bc0; bc <= bc1; ++bc)
        binColumns_.push_back(std::min(b.c1, bc * binSize_ + binSize_ - 1) - std::max(b.c0, bc * binSize_) +
                              1);
    for (int br = b.r0 / binSize_; br <= b.r1 / binSize_; ++br) {
        const int rows = std::min(b.r1, br * binSize_ + binSize_ - 1) - std::max(b.r0, br * binSize_) + 1;
        const double perColumn = density * rows;
        const int first = br * binCols_ + bc0;
        for (int i = 0; i <= bc1 - bc0; ++i) {
            const int bin = first + i;
            if (binMark_[bin] != binStamp_) { // first touch in this move
                binMark_[bin] = binStamp_;
                touchedBins_.push_back(bin);
                savedDemand_.push_back(demand_[bin]);
            }
            demand_[bin] += perColumn * binColumns_[i];
        }
    }
}

double PlacementAnnealer::binPenalty(double demand, int bin) const {
    const double cap = binCapacity_[bin];
    const double over = demand - cap;
    return over > 0 ? lambdaCong_ * over * over / cap : 0.0;
}

double PlacementAnnealer::wirelength() const {
    double w = 0;
    for (double c : netCost_)
        w += c;
    return w;
}

// Two streams over one AGCU port each run at half their rate, whatever the wires: over-subscribing a port
// costs as much as a link's worth of traffic across the grid per link of excess, and that squared. (Squared
// alone, a third of a link too much cost less than the wires to a free AGCU across the chip, and Mixtral
// dynamic placed from seed 9 kept three experts' loads on one port: 3.27 M cycles instead of 2.81 M.)
double PlacementAnnealer::portPenalty(double load) const {
    const double over = load - 1.0;
    return over > 0 ? lambdaCong_ * std::max(layout_.rows(), layout_.cols()) * (over + over * over) : 0.0;
}

// A port's penalty summed over the drain's phases, each weighted by its length, with cell `joins` added to it
// and `leaves` taken off (-1: none): its link each way, and its window for both. Charging only the busiest
// phase left the others unbalanced: a move that evened out an FFN phase on a port whose worst phase was
// attention gained nothing, and Llama2's batch-1 layer kept AGCUs from idle to 2.3x over (489K cycles; 408K
// summed).
double PlacementAnnealer::portCost(int agcu, int joins, int leaves) const {
    double c = 0;
    for (int p = 0; p < phases_; ++p) {
        const int k = agcu * phases_ + p;
        double out = portOut_[k], in = portIn_[k];
        if (joins >= 0) {
            out += cellOut_[joins * phases_ + p];
            in += cellIn_[joins * phases_ + p];
        }
        if (leaves >= 0) {
            out -= cellOut_[leaves * phases_ + p];
            in -= cellIn_[leaves * phases_ + p];
        }
        c += phaseWeight_[p] * portPenalty(agcuPortLoad(out, in, link_, window_[p]));
    }
    return c;
}

double PlacementAnnealer::cost() const {
    double c = wirelength();
    for (int b = 0; b < static_cast<int>(demand_.size()); ++b)
        c += binPenalty(demand_[b], b);
    for (int a = 0; a < static_cast<int>(layout_.agcus().size()); ++a)
        c += portCost(a, -1, -1);
    return c;
}

double PlacementAnnealer::tryMove(double t, int window, bool* accepted) {
    *accepted = false;
    const std::uint64_t pick = below(movable_.size() + agcuCells_.size());
    const bool agcu = pick >= movable_.size();
    const int a = agcu ? agcuCells_[pick - movable_.size()] : movable_[pick];
    Cell& ca = nl_.cells[a];
    const Site from = ca.site;
    int other = -1;
    double portDelta = 0;
    if (agcu) { // to any other AGCU (they sit a tile's side apart, wider than late windows), joining the
                // cells there or swapping with one of them
        const auto& sites = layout_.agcus();
        const auto& to = sites[below(sites.size())];
        if (to.index == from.agcu) return 0;
        const auto& there = agcuHosts_[to.index];
        if (!there.empty() && below(2)) other = there[below(there.size())];
        // An operator's lanes stay on AGCUs of their own (its bursts are striped over them).
        auto clash = [&](int cell, const std::vector<int>& hosts, int leaving) {
            return cell >= 0 && std::any_of(hosts.begin(), hosts.end(), [&](int h) {
                       return h != leaving && h != cell && agcuOp_[cell] >= 0 && agcuOp_[h] == agcuOp_[cell];
                   });
        };
        if (clash(a, there, other) || clash(other, agcuHosts_[from.agcu], a)) return 0;
        portDelta = portCost(from.agcu, other, a) - portCost(from.agcu, -1, -1) +
                    portCost(to.index, a, other) - portCost(to.index, -1, -1);
        ca.site = {UnitKind::Agcu, to.row, to.col, to.index};
        if (other >= 0) nl_.cells[other].site = from;
    } else {
        const int span = 2 * window + 1;
        const int r = std::clamp(from.row - window + static_cast<int>(below(span)), 0, layout_.rows() - 1);
        int c = std::clamp(from.col - window + static_cast<int>(below(span)), 0, layout_.cols() - 1);
        if (layout_.siteKind(r, c) != from.kind) c += c + 1 < layout_.cols() ? 1 : -1;
        if (r == from.row && c == from.col) return 0;
        other = siteCell_[r * layout_.cols() + c];
        ca.site.row = r;
        ca.site.col = c;
        if (other >= 0) {
            nl_.cells[other].site.row = from.row;
            nl_.cells[other].site.col = from.col;
        }
    }
    // The nets the move touches, each once.
    ++stamp_;
    touched_.clear();
    for (int cell : {a, other}) {
        if (cell < 0) continue;
        for (int k : nl_.netsOf[cell])
            if (mark_[k] != stamp_) {
                mark_[k] = stamp_;
                touched_.push_back(k);
            }
    }
    ++binStamp_;
    touchedBins_.clear();
    savedDemand_.clear();
    newBox_.clear();
    double delta = portDelta;
    for (int k : touched_) {
        const Box nb = boxOf(k);
        newBox_.push_back(nb);
        delta += netCost(nb, k) - netCost_[k];
        if (lambdaCong_ > 0 && !nl_.nets[k].group) {
            spread(box_[k], k, -1);
            spread(nb, k, 1);
        }
    }
    for (std::size_t i = 0; i < touchedBins_.size(); ++i)
        delta += binPenalty(demand_[touchedBins_[i]], touchedBins_[i]) -
                 binPenalty(savedDemand_[i], touchedBins_[i]);

    if (delta <= 0 || (t > 0 && uniform() < std::exp(-delta / t))) {
        *accepted = true;
        for (std::size_t i = 0; i < touched_.size(); ++i) {
            box_[touched_[i]] = newBox_[i];
            netCost_[touched_[i]] = netCost(newBox_[i], touched_[i]);
        }
        if (agcu) {
            for (auto [cell, src, dst] :
                 {std::tuple{a, from.agcu, ca.site.agcu}, {other, ca.site.agcu, from.agcu}}) {
                if (cell < 0) continue;
                for (int p = 0; p < phases_; ++p) {
                    portOut_[src * phases_ + p] -= cellOut_[cell * phases_ + p];
                    portIn_[src * phases_ + p] -= cellIn_[cell * phases_ + p];
                    portOut_[dst * phases_ + p] += cellOut_[cell * phases_ + p];
                    portIn_[dst * phases_ + p] += cellIn_[cell * phases_ + p];
                }
                auto& hosts = agcuHosts_[src];
                hosts.erase(std::find(hosts.begin(), hosts.end(), cell));
                agcuHosts_[dst].push_back(cell);
            }
        } else {
            siteCell_[from.row * layout_.cols() + from.col] = other;
            siteCell_[ca.site.row * layout_.cols() + ca.site.col] = a;
        }
        return delta;
    }
    for (std::size_t i = 0; i < touchedBins_.size(); ++i)
        demand_[touchedBins_[i]] = savedDemand_[i];
    if (other >= 0) nl_.cells[other].site = ca.site;
    ca.site = from;
    return delta;
}

AnnealStats PlacementAnnealer::run() {
    AnnealStats s;
    s.initialCost = cost();
    s.initialWirelength = wirelength();
    const int n = static_cast<int>(movable_.size() + agcuCells_.size());
    if (n < 2 || nl_.nets.empty()) {
        s.finalCost = s.initialCost;
        s.finalWirelength = s.initialWirelength;
        return s;
    }
    const int maxDim = std::max(layout_.rows(), layout_.cols());
    // The start is constructive, not random: begin near the spread of the moves' costs, not 20 times it.
    double sum = 0, sum2 = 0;
    int samples = 0;
    bool accepted = false;
    for (int i = 0; i < std::min(n, 2000); ++i) {
        const double d = tryMove(0, maxDim, &accepted);
        if (d != 0) {
            sum += d;
            sum2 += d * d;
            ++samples;
        }
    }
    const double mean = samples ? sum / samples : 0;
    double t = samples ? std::sqrt(std::max(0.0, sum2 / samples - mean * mean)) : 0;
    const auto movesPerT = static_cast<std::int64_t>(
        std::clamp(cfg_.pnr.effort * 5.0 * std::pow(double(n), 4.0 / 3.0), 200.0, cfg_.pnr.effort * 50000.0));
    int window = maxDim;
    // The best placement seen at the end of a temperature is kept: a schedule cut short by the cap ends
    // no worse than it began.
    double best = cost();
    std::vector<Site> bestSites;
    for (const auto& c : nl_.cells)
        bestSites.push_back(c.site);
    while (t > 0 && s.temperatures < 300) {
        std::int64_t acc = 0;
        for (std::int64_t m = 0; m < movesPerT; ++m) {
            tryMove(t, window, &accepted);
            acc += accepted;
        }
        s.moves += movesPerT;
        s.accepted += acc;
        ++s.temperatures;
        const double rate = double(acc) / double(movesPerT);
        window = std::clamp(static_cast<int>(std::lround(window * (1 - 0.44 + rate))), 1, maxDim);
        t *= rate > 0.96 ? 0.5 : rate > 0.8 ? 0.9 : rate > 0.15 ? 0.95 : 0.8;
        const double c = cost();
        if (c < best) {
            best = c;
            for (std::size_t i = 0; i < nl_.cells.size(); ++i)
                bestSites[i] = nl_.cells[i].site;
        }
        if (t < 0.005 * c / double(nl_.nets.size())) break;
    }
    if (cost() > best) {
        for (std::size_t i = 0; i < nl_.cells.size(); ++i)
            nl_.cells[i].site = bestSites[i];
        rebuild();
    }
    // A last greedy pass settles what the schedule left.
    for (std::int64_t m = 0; m < movesPerT; ++m)
        tryMove(0, 1, &accepted);
    s.moves += movesPerT;
    s.finalCost = cost();
    s.finalWirelength = wirelength();
    return s;
}

} // namespace steprdu::hw::pnr
