#include "hw/pnr/CongestionRouter.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include <fmt/format.h>

#include "hw/arch/MeshPath.h"
#include "util/Error.h"

namespace steprdu::hw::pnr {

namespace {

constexpr int kDirs = kDirections; // RdnMesh's link order

} // namespace

Routing routeNets(const HwConfig& cfg, const Netlist& nl) {
    const ChipLayout L(cfg.chip);
    Routing R;
    R.capacity = cfg.rdn.flit_bytes;
    R.cols = L.cols();
    const int links = L.numSites() * kDirs;
    LinkLoads load(links, nl.phases);
    const RoutePolicy policy = cfg.rdn.routing;

    std::vector<int> order; // routable nets, heaviest first
    for (int k = 0; k < static_cast<int>(nl.nets.size()); ++k)
        if (!nl.nets[k].group && !nl.nets[k].legs.empty()) order.push_back(k);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return nl.nets[a].weight > nl.nets[b].weight; });
    // Per net: its legs' options chosen and their links, and the union of those links.
    std::vector<std::vector<char>> choice(nl.nets.size());
    std::vector<std::vector<std::vector<int>>> legPaths(nl.nets.size());
    std::vector<std::vector<int>> tree(nl.nets.size());
    std::vector<double> history(links, 0.0);
    std::vector<int> inTree(links, -1); // the net whose tree is being built holds the link
    double pf = 0.5;
    const double hf = 0.5;

    auto pos = [&](int cell) { return std::make_pair(nl.cells[cell].site.row, nl.cells[cell].site.col); };
    auto ripUp = [&](int k) {
        for (int l : tree[k])
            load.add(l, nl.nets[k].phase, -nl.nets[k].weight);
        tree[k].clear();
    };
    auto route = [&](int k) {
        const Net& net = nl.nets[k];
        const auto [sr, sc] = pos(net.cells[0]);
        choice[k].assign(net.legs.size(), 0);
        legPaths[k].assign(net.legs.size(), {});
        for (int s : sinksNearestFirst(nl, net)) {
            const auto [tr, tc] = pos(net.cells[s + 1]);
            const auto options = legOptions(policy, sr, sc, tr, tc);
            double best = 0;
            int pick = -1;
            std::vector<int> paths[2];
            for (int o = 0; o < 2; ++o) {
                if (!options[o]) continue;
                paths[o] = legLinks(L.cols(), sr, sc, tr, tc, o == 1);
                double cost = 0;
                for (int l : paths[o]) {
                    if (inTree[l] == k) continue;
                    const double over =
                        std::max(0.0, (load.seenBy(l, net.phase, net.weight) - R.capacity) / R.capacity);
                    cost += (1 + history[l]) * (1 + pf * over);
                }
                if (pick < 0 || cost < best) {
                    best = cost;
                    pick = o;
                }
            }
            choice[k][s] = static_cast<char>(pick);
            for (int l : paths[pick])
                if (inTree[l] != k) {
                    inTree[l] = k;
                    tree[k].push_back(l);
                    load.add(l, net.phase, net.weight);
                }
            legPaths[k][s] = std::move(paths[pick]);
        }
        for (int l : tree[k])
            inTree[l] = -1;
    };

    const double eps = 1e-9;
    for (int it = 0; it < cfg.pnr.route_iterations; ++it) {
        R.iterations = it + 1;
        for (int k : order) {
            bool again = it == 0;
            for (int l : tree[k])
                again = again || load.seenBy(l, nl.nets[k].phase, 0) > R.capacity + eps;
            if (!again) continue;
            ripUp(k);
            route(k);
        }
        int overused = 0;
        for (int l = 0; l < links; ++l)
            if (const double peak = load.peak(l); peak > R.capacity + eps) {
                ++overused;
                history[l] += hf * (peak - R.capacity) / R.capacity;
            }
        R.overused = overused;
        if (!overused) break;
        pf *= 1.5;
    }
    LinkLoads planned(links, nl.phases);
    for (int k : order)
        for (int l : tree[k])
            planned.add(l, nl.nets[k].phase, nl.nets[k].rate);
    for (const auto& scale : nl.drainScale) {
        std::vector<double> drained(links, 0.0);
        for (int k : order)
            for (int l : tree[k])
                drained[l] += nl.nets[k].rate * scale[nl.nets[k].op];
        R.drainPeak.push_back(*std::max_element(drained.begin(), drained.end()) / R.capacity);
    }
    R.load.resize(links);
    R.planned.resize(links);
    for (int l = 0; l < links; ++l) {
        R.load[l] = load.peak(l);
        R.planned[l] = planned.peak(l);
    }

    // The legs, and the flows each switch's routing table holds.
    std::vector<int> flows(L.numSites(), 0), lastNet(L.numSites(), -1);
    for (int k : order) {
        const Net& net = nl.nets[k];
        for (std::size_t s = 0; s < net.legs.size(); ++s) {
            RoutedLeg leg;
            leg.net = k;
            leg.sink = static_cast<int>(s);
            leg.columnFirst = choice[k][s] == 1;
            leg.links = std::move(legPaths[k][s]);
            // The switches it passes: each link's source, then the sink's.
            std::vector<int> switches;
            for (int l : leg.links)
                switches.push_back(l / kDirs);
            const auto [tr, tc] = pos(net.cells[s + 1]);
            switches.push_back(tr * L.cols() + tc);
            for (int sw : switches)
                if (lastNet[sw] != k) {
                    lastNet[sw] = k;
                    if (++flows[sw] > cfg.rdn.flow_table_entries)
                        throw BadInput(fmt::format(
                            "pnr: no route for stream {}: the routing table of switch {} is full ({} flows; "
                            "rdn.flow_table_entries = {})",
                            net.name, ChipLayout::switchName(sw / L.cols(), sw % L.cols()), flows[sw] - 1,
                            cfg.rdn.flow_table_entries));
                    R.maxFlowTable = std::max(R.maxFlowTable, flows[sw]);
                }
            R.legs.push_back(std::move(leg));
        }
    }
    return R;
}

double LinkLoads::peakOf(const double* loads, int phase, double bytes) const {
    double busiest = 0;
    for (int p = 0; p + 1 < buckets_; ++p)
        busiest = std::max(busiest, loads[p + 1] + (p == phase ? bytes : 0.0));
    return loads[0] + busiest + (phase < 0 ? bytes : 0.0);
}

double LinkLoads::seenBy(int link, int phase, double bytes) const {
    const double* v = at(link);
    if (phase >= 0) return v[0] + v[phase + 1] + bytes;
    return peakOf(v, -1, 0) + bytes;
}

std::vector<int> sinksNearestFirst(const Netlist& nl, const Net& net) {
    auto pos = [&](int cell) { return std::make_pair(nl.cells[cell].site.row, nl.cells[cell].site.col); };
    const auto source = pos(net.cells[0]); // a pair, not a structured binding: lambdas capture it in C++17
    std::vector<int> sinks(net.legs.size());
    std::iota(sinks.begin(), sinks.end(), 0);
    auto dist = [&](int s) {
        const auto [r, c] = pos(net.cells[s + 1]);
        return std::abs(r - source.first) + std::abs(c - source.second);
    };
    std::stable_sort(sinks.begin(), sinks.end(), [&](int a, int b) { return dist(a) < dist(b); });
    return sinks;
}

std::array<bool, 2> legOptions(RoutePolicy policy, int sr, int sc, int tr, int tc) {
    std::array<bool, 2> options = {policy != RoutePolicy::Yx, policy != RoutePolicy::Xy};
    if (policy == RoutePolicy::Negotiated && tc < sc) options[1] = false; // west-first: west goes first
    if (sr == tr || sc == tc) options[1] = !options[0];                   // one path either way
    return options;
}

std::vector<int> legLinks(int cols, int sr, int sc, int tr, int tc, bool columnFirst) {
    std::vector<int> out;
    for (const MeshHop& h : meshPath(sr, sc, tr, tc, columnFirst))
        out.push_back((h.row * cols + h.col) * kDirs + h.dir);
    return out;
}

bool Routing::deadlockFree() const {
    // Kahn's algorithm over link -> next link dependencies of every route.
    const std::size_t n = load.size();
    std::vector<std::vector<int>> next(n);
    std::vector<int> indegree(n, 0);
    for (const auto& leg : legs)
        for (std::size_t i = 0; i + 1 < leg.links.size(); ++i) {
            auto& out = next[leg.links[i]];
            if (std::find(out.begin(), out.end(), leg.links[i + 1]) == out.end()) {
                out.push_back(leg.links[i + 1]);
                ++indegree[leg.links[i + 1]];
            }
        }
    std::vector<int> ready;
    for (std::size_t l = 0; l < n; ++l)
        if (!indegree[l]) ready.push_back(static_cast<int>(l));
    std::size_t seen = 0;
    while (!ready.empty()) {
        int l = ready.back();
        ready.pop_back();
        ++seen;
        for (int m : next[l])
            if (--indegree[m] == 0) ready.push_back(m);
    }
    return seen == n;
}

double Routing::maxLinkLoad() const {
    double m = 0;
    for (double l : planned)
        m = std::max(m, l / capacity);
    return m;
}

double Routing::totalLinkLoad() const {
    double sum = 0;
    for (double l : planned)
        sum += l / capacity;
    return sum;
}

// Loads and over-subscription as planned: each stream at its rate.
nlohmann::json Routing::report(const Netlist& nl) const {
    const int used =
        static_cast<int>(std::count_if(load.begin(), load.end(), [](double l) { return l > 1e-12; }));
    std::int64_t hops = 0;
    int maxHops = 0;
    for (const auto& leg : legs) {
        hops += static_cast<std::int64_t>(leg.links.size());
        maxHops = std::max(maxHops, static_cast<int>(leg.links.size()));
    }
    int columnFirst = 0;
    for (const auto& leg : legs)
        columnFirst += leg.columnFirst;
    std::vector<int> byLoad;
    for (std::size_t l = 0; l < planned.size(); ++l)
        if (planned[l] > 1e-12) byLoad.push_back(static_cast<int>(l));
    std::stable_sort(byLoad.begin(), byLoad.end(), [&](int a, int b) { return planned[a] > planned[b]; });
    // The busiest links with the nets on them.
    nlohmann::json hot = nlohmann::json::array();
    for (std::size_t i = 0; i < std::min<std::size_t>(10, byLoad.size()); ++i) {
        const int l = byLoad[i], sw = l / kDirs;
        std::vector<std::string> nets;
        for (const auto& leg : legs)
            if (std::find(leg.links.begin(), leg.links.end(), l) != leg.links.end() &&
                std::find(nets.begin(), nets.end(), nl.nets[leg.net].name) == nets.end())
                nets.push_back(nl.nets[leg.net].name);
        hot.push_back({{"link", fmt::format("{}.{}", ChipLayout::switchName(sw / cols, sw % cols),
                                            directionName(l % kDirs))},
                       {"load", planned[l] / capacity},
                       {"nets", nets}});
    }
    // Every link loaded beyond its bandwidth after the last round: its streams run slower than planned.
    nlohmann::json over = nlohmann::json::array();
    for (int l : byLoad) {
        if (planned[l] <= capacity * (1 + 1e-9)) break;
        const int sw = l / kDirs;
        over.push_back({{"link", fmt::format("{}.{}", ChipLayout::switchName(sw / cols, sw % cols),
                                             directionName(l % kDirs))},
                        {"load", planned[l] / capacity}});
    }
    return {{"legs", legs.size()},
            {"legs_column_first", columnFirst},
            {"iterations", iterations},
            {"overused_links", over.size()},
            {"links_used", used},
            {"max_link_load", maxLinkLoad()},
            {"mean_link_load", used ? totalLinkLoad() / used : 0.0},
            {"hops_total", hops},
            {"hops_mean", legs.empty() ? 0.0 : double(hops) / double(legs.size())},
            {"hops_max", maxHops},
            {"max_flow_table", maxFlowTable},
            {"deadlock_free", deadlockFree()},
            {"hottest_links", hot},
            {"oversubscribed_links", over}};
}

} // namespace steprdu::hw::pnr
