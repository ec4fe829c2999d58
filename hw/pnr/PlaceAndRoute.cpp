#include "hw/pnr/PlaceAndRoute.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <set>

#include <fmt/format.h>

#include "hw/pnr/ConstructivePlacement.h"
#include "hw/pnr/PlacementAnnealer.h"

namespace steprdu::hw::pnr {

namespace {

double since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// One placement (constructive, then annealed from `cfg.pnr.seed`) and its routes; the report is left empty.
struct PlacedAndRouted {
    PnrResult result;
    AnnealStats anneal;
    double placeSeconds = 0, routeSeconds = 0;
};

PlacedAndRouted placeOnce(const step::Graph& g, const HwConfig& cfg, const VirtualUnits& v,
                          const LoweringOptions& o, bool mesh) {
    PlacedAndRouted p;
    PnrResult& r = p.result;
    auto t0 = std::chrono::steady_clock::now();
    r.placement = placeConstructive(g, cfg, v, o.bindings);
    r.netlist = buildNetlist(g, cfg, r.placement, v, o);
    {
        PlacementAnnealer a(cfg, r.netlist);
        if (mesh && cfg.pnr.placer == "anneal") {
            p.anneal = a.run();
            applyNetlist(g, r.netlist, r.placement);
            assignAgcus(g, cfg, o.bindings, r.placement);
            r.netlist = buildNetlist(g, cfg, r.placement, v, o);
        } else {
            p.anneal.initialCost = p.anneal.finalCost = a.cost();
            p.anneal.initialWirelength = p.anneal.finalWirelength = a.wirelength();
        }
    }
    p.placeSeconds = since(t0);

    t0 = std::chrono::steady_clock::now();
    if (mesh) {
        r.routing = routeNets(cfg, r.netlist);
        for (const auto& leg : r.routing.legs)
            r.placement.columnFirst[r.netlist.nets[leg.net].legs[leg.sink]] = leg.columnFirst;
    }
    p.routeSeconds = since(t0);
    return p;
}

} // namespace

PnrResult placeAndRoute(const step::Graph& g, const HwConfig& cfg, const LoweringOptions& o) {
    const ChipLayout L(cfg.chip);
    const bool mesh = cfg.rdn.topology == "mesh";
    auto t0 = std::chrono::steady_clock::now();
    const VirtualUnits v = lower(g, cfg, o);
    const double lowerSeconds = since(t0);

    // Annealing is a random search: with several starts, the placement whose routes load the busiest link
    // least is kept (then the least routed traffic, then the first).
    const int starts = mesh && cfg.pnr.placer == "anneal" ? cfg.pnr.starts : 1;
    PlacedAndRouted best;
    int seed = cfg.pnr.seed;
    double placeSeconds = 0, routeSeconds = 0;
    nlohmann::json startLoads = nlohmann::json::array();
    for (int s = 0; s < starts; ++s) {
        HwConfig c = cfg;
        c.pnr.seed = static_cast<int>((std::int64_t(cfg.pnr.seed) + s) % (std::int64_t(1) << 31));
        PlacedAndRouted p = placeOnce(g, c, v, o, mesh);
        placeSeconds += p.placeSeconds;
        routeSeconds += p.routeSeconds;
        const Routing &run = p.result.routing, &kept = best.result.routing;
        startLoads.push_back({{"seed", c.pnr.seed},
                              {"max_link_load", run.maxLinkLoad()},
                              {"total_link_load", run.totalLinkLoad()}});
        if (s == 0 || run.maxLinkLoad() < kept.maxLinkLoad() ||
            (run.maxLinkLoad() == kept.maxLinkLoad() && run.totalLinkLoad() < kept.totalLinkLoad())) {
            best = std::move(p);
            seed = c.pnr.seed;
        }
    }
    PnrResult r = std::move(best.result);
    const AnnealStats& anneal = best.anneal;

    // Units used, per kind and die.
    nlohmann::json units = nlohmann::json::object();
    for (UnitKind k : {UnitKind::Pcu, UnitKind::Pmu, UnitKind::Agcu}) {
        std::set<std::pair<int, int>> sites; // (die, site id)
        for (const auto& c : r.netlist.cells)
            if (c.site.kind == k)
                sites.insert({L.die(c.site.col),
                              k == UnitKind::Agcu ? c.site.agcu : c.site.row * L.cols() + c.site.col});
        std::vector<int> perDie(cfg.chip.dies, 0);
        for (const auto& s : sites)
            ++perDie[s.first];
        units[kindName(k)] = {{"used", sites.size()}, {"available", L.numUnits(k)}, {"per_die", perDie}};
    }
    r.report = {
        {"preset", cfg.name},
        {"seed", seed},
        {"starts", startLoads},
        {"placer", mesh ? cfg.pnr.placer : "constructive (ideal network)"},
        {"on_overflow", cfg.pnr.on_overflow},
        {"units", units},
        {"shrunk", v.shrunk},
        {"rate_model_cycles", v.runCycles},
        {"cells", r.netlist.cells.size()},
        {"nets", r.netlist.nets.size()},
        {"wirelength",
         {{"weighted_hpwl_initial", anneal.initialWirelength},
          {"weighted_hpwl", anneal.finalWirelength},
          {"cost_initial", anneal.initialCost},
          {"cost", anneal.finalCost}}},
        {"annealing",
         {{"temperatures", anneal.temperatures}, {"moves", anneal.moves}, {"accepted", anneal.accepted}}},
        {"seconds", {{"lower", lowerSeconds}, {"place", placeSeconds}, {"route", routeSeconds}}}};
    if (mesh) r.report["routing"] = r.routing.report(r.netlist);
    return r;
}

std::string floorplanSvg(const step::Graph& g, const HwConfig& cfg, const PnrResult& r) {
    const ChipLayout L(cfg.chip);
    constexpr int kCell = 12, kMargin = 24;
    const int width = L.cols() * kCell + 2 * kMargin, height = L.rows() * kCell + 2 * kMargin;
    std::string s = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
        "font-family=\"sans-serif\" font-size=\"8\">\n<rect width=\"100%\" height=\"100%\" "
        "fill=\"white\"/>\n",
        width, height, width, height);
    auto x = [&](int col) { return kMargin + col * kCell + kCell / 2; };
    auto y = [&](int row) { return kMargin + row * kCell + kCell / 2; };
    // Empty sites, faint; tile and die boundaries.
    for (int row = 0; row < L.rows(); ++row)
        for (int col = 0; col < L.cols(); ++col)
            s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n",
                             kMargin + col * kCell + 1, kMargin + row * kCell + 1, kCell - 2, kCell - 2,
                             L.siteKind(row, col) == UnitKind::Pcu ? "#f2f2f2" : "#e8eef5");
    for (int c = 0; c <= L.cols(); c += cfg.chip.cols)
        s += fmt::format(
            "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#999\" stroke-width=\"{3}\"/>\n",
            kMargin + c * kCell, kMargin, kMargin + L.rows() * kCell,
            c % (cfg.chip.cols * cfg.chip.die_tile_cols) == 0 ? 2 : 0.5);
    for (int row = 0; row <= L.rows(); row += cfg.chip.rows)
        s += fmt::format(
            "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#999\" stroke-width=\"0.5\"/>\n",
            kMargin, kMargin + row * kCell, kMargin + L.cols() * kCell);
    // Units, coloured by the operator they host (a hue from its name).
    auto hue = [](const std::string& name) { return static_cast<int>(std::hash<std::string>{}(name) % 360); };
    for (int i = 0; i < g.numOps(); ++i) {
        const auto& p = r.placement.ops[i];
        if (p.folded || p.units.empty()) continue;
        for (const auto& site : p.units) {
            if (site.kind == UnitKind::Agcu) continue;
            s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"hsl({},70%,55%)\" "
                             "stroke=\"{}\"><title>{} ({} {})</title></rect>\n",
                             kMargin + site.col * kCell + 1, kMargin + site.row * kCell + 1, kCell - 2,
                             kCell - 2, hue(g.op(i).name()), site.kind == UnitKind::Pcu ? "black" : "none",
                             g.op(i).name(), kindName(site.kind),
                             ChipLayout::siteName(site.row, site.col, site.kind));
        }
    }
    for (const auto& st : r.placement.stages)
        for (const auto& site : st.pmus)
            s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"hsl({},40%,80%)\">"
                             "<title>stage of {} input {}</title></rect>\n",
                             kMargin + site.col * kCell + 1, kMargin + site.row * kCell + 1, kCell - 2,
                             kCell - 2, hue(g.op(st.consumer).name()), g.op(st.consumer).name(), st.port);
    for (const auto& a : L.agcus())
        s += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"#333\"><title>{}</title></circle>\n",
                         x(a.col), y(a.row), ChipLayout::agcuName(a.index));
    // Routes: a polyline per leg, as wide as its bandwidth in links' worth (at least a hairline).
    const double flit = cfg.rdn.flit_bytes;
    for (const auto& leg : r.routing.legs) {
        const Net& net = r.netlist.nets[leg.net];
        const Site& src = r.netlist.cells[net.cells[0]].site;
        std::string points = fmt::format("{},{}", x(src.col), y(src.row));
        int row = src.row, col = src.col;
        for (int l : leg.links) {
            const int dir = l % 4;
            row += (dir == 2) - (dir == 0);
            col += (dir == 1) - (dir == 3);
            points += fmt::format(" {},{}", x(col), y(row));
        }
        s += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"hsla({},80%,35%,0.6)\" "
                         "stroke-width=\"{:.2f}\"><title>{}</title></polyline>\n",
                         points, hue(net.name), std::clamp(4.0 * net.weight / flit, 0.3, 4.0), net.name);
    }
    s += fmt::format(
        "<text x=\"{}\" y=\"14\">{}: {} PCUs, {} PMUs, {} AGCUs used; routes by bandwidth</text>\n", kMargin,
        cfg.name, r.report["units"]["pcu"]["used"].get<int>(), r.report["units"]["pmu"]["used"].get<int>(),
        r.report["units"]["agcu"]["used"].get<int>());
    s += "</svg>\n";
    return s;
}

} // namespace steprdu::hw::pnr
