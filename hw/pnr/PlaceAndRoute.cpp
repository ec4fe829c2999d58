#include "hw/pnr/PlaceAndRoute.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <thread>

#include <fmt/format.h>

#include "hw/pnr/CongestionRepair.h"
#include "hw/pnr/ConstructivePlacement.h"
#include "hw/pnr/PlacementAnnealer.h"
#include "util/Error.h"

namespace steprdu::hw::pnr {

namespace {

double since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The rate model's drain on this placement (0 without one): each of its phases stretched by the busiest link
// or AGCU port (a link each way, its window both ways) over its bandwidth at the operators' rates there.
double drainCycles(const HwConfig& cfg, const Netlist& nl, const Routing& routing) {
    if (nl.drainScale.empty() || routing.drainPeak.size() != nl.drainScale.size()) return 0;
    const int agcus = static_cast<int>(ChipLayout(cfg.chip).agcus().size());
    const double link = agcuLinkBytesPerCycle(cfg);
    double cycles = 0;
    for (std::size_t p = 0; p < nl.drainScale.size(); ++p) {
        std::vector<double> out(agcus, 0.0), in(agcus, 0.0);
        for (const Net& net : nl.nets) {
            if (net.group || net.op < 0) continue;
            const double rate = net.rate * nl.drainScale[p][net.op];
            const Site& src = nl.cells[net.cells.front()].site;
            if (src.kind == UnitKind::Agcu) out[src.agcu] += rate * double(net.cells.size() - 1);
            for (std::size_t c = 1; c < net.cells.size(); ++c)
                if (const Site& s = nl.cells[net.cells[c]].site; s.kind == UnitKind::Agcu) in[s.agcu] += rate;
        }
        double port = 0;
        for (int a = 0; a < agcus; ++a)
            port = std::max(port, agcuPortLoad(out[a], in[a], link, nl.drainWindowBytes[p]));
        cycles += nl.drainCycles[p] * std::max({1.0, routing.drainPeak[p], port});
    }
    return cycles;
}

// The drain's phases as pnr.json gives them: cycles, what an AGCU's window moves, and the off-chip operators'
// rates as multiples of their planned ones.
nlohmann::json drainReport(const step::Graph& g, const VirtualUnits& v) {
    nlohmann::json phases = nlohmann::json::array();
    for (const auto& p : v.drain) {
        nlohmann::json rates = nlohmann::json::object();
        for (int i = 0; i < g.numOps(); ++i)
            if (v.role[i] == Role::Agcu && v.origin[i] == i) rates[g.op(i).name()] = p.scale[i];
        phases.push_back(
            {{"cycles", p.cycles}, {"window_bytes_per_cycle", p.windowBytes}, {"rate_over_planned", rates}});
    }
    return phases;
}

// One placement (constructive, then annealed from `cfg.pnr.seed`) and its routes; the report is left empty.
struct PlacedAndRouted {
    PnrResult result;
    AnnealStats anneal;
    RepairStats repair;
    bool repairKept = false;
    double placeSeconds = 0, routeSeconds = 0;
};

PlacedAndRouted placeOnce(const step::Graph& g, const HwConfig& cfg, const VirtualUnits& v,
                          const LoweringOptions& o, bool mesh) {
    PlacedAndRouted p;
    PnrResult& r = p.result;
    auto t0 = std::chrono::steady_clock::now();
    r.placement = placeConstructive(g, cfg, v, o.bindings);
    r.netlist = buildNetlist(g, cfg, r.placement, v);
    {
        PlacementAnnealer a(cfg, r.netlist);
        if (mesh && cfg.pnr.placer == Placer::Anneal) {
            p.anneal = a.run();
            applyNetlist(g, r.netlist, r.placement);
            r.netlist = buildNetlist(g, cfg, r.placement, v);
        } else {
            p.anneal.initialCost = p.anneal.finalCost = a.cost();
            p.anneal.initialWirelength = p.anneal.finalWirelength = a.wirelength();
        }
    }
    p.placeSeconds = since(t0);

    t0 = std::chrono::steady_clock::now();
    if (mesh) {
        r.routing = routeNets(cfg, r.netlist);
        // Links the routes left over-subscribed: move their streams' ends, route again, and keep the result
        // if its busiest link (then its total load) is lighter.
        if (cfg.pnr.placer == Placer::Anneal && cfg.pnr.repair && r.routing.maxLinkLoad() > 1 + 1e-9) {
            Netlist moved = r.netlist;
            p.repair = CongestionRepair(cfg, moved, r.routing).run();
            if (p.repair.moves) {
                Placement placement = r.placement;
                applyNetlist(g, moved, placement);
                Netlist nl = buildNetlist(g, cfg, placement, v);
                Routing routing = routeNets(cfg, nl);
                if (routing.maxLinkLoad() < r.routing.maxLinkLoad() - 1e-9 ||
                    (routing.maxLinkLoad() <= r.routing.maxLinkLoad() + 1e-9 &&
                     routing.totalLinkLoad() < r.routing.totalLinkLoad())) {
                    r.placement = std::move(placement);
                    r.netlist = std::move(nl);
                    r.routing = std::move(routing);
                    p.repairKept = true;
                }
            }
        }
        for (const auto& leg : r.routing.legs)
            r.placement.columnFirst[r.netlist.nets[leg.net].legs[leg.sink]] = leg.columnFirst;
    }
    p.routeSeconds = since(t0);
    return p;
}

// The result of one start with its report, pnr.json (the placement included).
PnrResult reportOn(const step::Graph& g, const HwConfig& cfg, const VirtualUnits& v, PlacedAndRouted best,
                   int seed, const nlohmann::json& startLoads, bool mesh, const nlohmann::json& seconds) {
    const ChipLayout L(cfg.chip);
    PnrResult r = std::move(best.result);
    const AnnealStats& anneal = best.anneal;
    const RepairStats& repair = best.repair;
    // Units used, per kind and die.
    nlohmann::json units = nlohmann::json::object();
    const std::vector<Site> used = r.placement.unitsUsed();
    for (UnitKind k : {UnitKind::Pcu, UnitKind::Pmu, UnitKind::Agcu}) {
        std::vector<int> perDie(cfg.chip.dies, 0);
        for (const auto& s : used)
            if (s.kind == k) ++perDie[L.die(s.col)];
        const int total = static_cast<int>(
            std::count_if(used.begin(), used.end(), [k](const Site& s) { return s.kind == k; }));
        units[kindName(k)] = {{"used", total}, {"available", L.numUnits(k)}, {"per_die", perDie}};
    }
    r.report = {
        {"preset", cfg.name},
        {"seed", seed},
        {"starts", startLoads},
        {"placer", mesh ? nameOf(cfg.pnr.placer) : "constructive (ideal network)"},
        {"on_overflow", nameOf(cfg.pnr.on_overflow)},
        {"units", units},
        {"shrunk", v.shrunk},
        {"rate_model_cycles", v.runCycles},
        {"drain", drainReport(g, v)},
        {"cells", r.netlist.cells.size()},
        {"nets", r.netlist.nets.size()},
        {"wirelength",
         {{"weighted_hpwl_initial", anneal.initialWirelength},
          {"weighted_hpwl", anneal.finalWirelength},
          {"cost_initial", anneal.initialCost},
          {"cost", anneal.finalCost}}},
        {"annealing",
         {{"temperatures", anneal.temperatures}, {"moves", anneal.moves}, {"accepted", anneal.accepted}}},
        {"repair",
         {{"moves", repair.moves},
          {"evaluated", repair.evaluated},
          {"kept", best.repairKept},
          {"oversubscription_before", repair.before},
          {"oversubscription_after", repair.after}}},
        {"seconds", seconds}};
    // Every stream between two units: its lanes and the rate lowering planned for it.
    nlohmann::json streams = nlohmann::json::array();
    for (int i = 0; i < g.numOps(); ++i)
        for (int k = 0; k < static_cast<int>(g.op(i).outputs().size()); ++k)
            for (const auto& [c, port] : g.consumers({i, k})) {
                const StagePlacement* stage = r.placement.stage(c, port);
                if (!stage && r.placement.ops[i].host() == r.placement.ops[c].host()) continue;
                streams.push_back(
                    {{"stream", fmt::format("{}[{}] -> {}[{}]", g.op(i).name(), k, g.op(c).name(), port)},
                     {"lanes", r.placement.lanes(i, k)},
                     {"stage_pmus", stage ? stage->pmus.size() : 0},
                     {"bytes_per_cycle", v.rate(i, k)}});
            }
    r.report["streams"] = streams;
    r.report["placement"] = r.placement.toJson(g);
    r.report["warnings"] = nlohmann::json::array();
    if (mesh) {
        r.report["routing"] = r.routing.report(r.netlist);
        const auto& over = r.report["routing"]["oversubscribed_links"];
        if (!over.empty())
            r.report["warnings"].push_back(fmt::format(
                "place and route: {} link(s) left over-subscribed after {} routing round(s), the worst {} at "
                "{:.2f}x its bandwidth; the streams on them run slower than lowering planned (pnr.json: "
                "routing.oversubscribed_links)",
                over.size(), r.routing.iterations, over[0]["link"].get<std::string>(),
                over[0]["load"].get<double>()));
    }
    return r;
}

} // namespace

std::vector<PnrResult> placeAndRouteRanked(const step::Graph& g, const HwConfig& cfg,
                                           const LoweringOptions& o, int keep) {
    const bool mesh = cfg.rdn.topology == Topology::Mesh;
    auto t0 = std::chrono::steady_clock::now();
    const VirtualUnits v = lower(g, cfg, o);
    const double lowerSeconds = since(t0);

    // Annealing is a random search: the starts are independent and run on the machine's cores, and are ranked
    // below by what their routes predict; the ranking does not depend on how many cores there are.
    const int starts = mesh && cfg.pnr.placer == Placer::Anneal ? cfg.pnr.starts : 1;
    auto seedOf = [&](int s) {
        return static_cast<int>((std::int64_t(cfg.pnr.seed) + s) % (std::int64_t(1) << 31));
    };
    std::vector<PlacedAndRouted> runs(starts);
    std::vector<std::exception_ptr> errors(starts);
    {
        std::atomic<int> next{0};
        auto work = [&] {
            for (int s; (s = next++) < starts;) {
                try {
                    HwConfig c = cfg;
                    c.pnr.seed = seedOf(s);
                    runs[s] = placeOnce(g, c, v, o, mesh);
                } catch (...) {
                    errors[s] = std::current_exception();
                }
            }
        };
        const int workers = std::min<int>(starts, std::max(1u, std::thread::hardware_concurrency()));
        std::vector<std::thread> pool;
        for (int w = 1; w < workers; ++w)
            pool.emplace_back(work);
        work();
        for (auto& t : pool)
            t.join();
    }
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e); // the first start's error, as one start at a time would throw
    double placeSeconds = 0, routeSeconds = 0;
    std::vector<double> drains(starts);
    nlohmann::json startLoads = nlohmann::json::array();
    for (int s = 0; s < starts; ++s) {
        HwConfig c = cfg;
        c.pnr.seed = seedOf(s);
        const PlacedAndRouted& p = runs[s];
        placeSeconds += p.placeSeconds;
        routeSeconds += p.routeSeconds;
        const Routing& run = p.result.routing;
        drains[s] = drainCycles(c, p.result.netlist, run);
        startLoads.push_back({{"seed", c.pnr.seed},
                              {"max_link_load", run.maxLinkLoad()},
                              {"total_link_load", run.totalLinkLoad()},
                              {"drain_cycles", drains[s]}});
    }
    // The predicted order: the best of the starts left, again and again. Drains within 1% of each other are a
    // tie, which the busiest planned link decides, then the total load, then the earlier start.
    std::vector<int> left(starts);
    for (int s = 0; s < starts; ++s)
        left[s] = s;
    std::vector<PnrResult> ranked;
    while (!left.empty() && static_cast<int>(ranked.size()) < std::max(1, keep)) {
        int best = left.front();
        for (int s : left) {
            const Routing &run = runs[s].result.routing, &kept = runs[best].result.routing;
            if (drains[s] < drains[best] * 0.99 ||
                (drains[s] <= drains[best] * 1.01 &&
                 (run.maxLinkLoad() < kept.maxLinkLoad() ||
                  (run.maxLinkLoad() == kept.maxLinkLoad() && run.totalLinkLoad() < kept.totalLinkLoad()))))
                best = s;
        }
        left.erase(std::find(left.begin(), left.end(), best));
        ranked.push_back(
            reportOn(g, cfg, v, std::move(runs[best]), seedOf(best), startLoads, mesh,
                     {{"lower", lowerSeconds}, {"place", placeSeconds}, {"route", routeSeconds}}));
    }
    return ranked;
}

PnrResult placeAndRoute(const step::Graph& g, const HwConfig& cfg, const LoweringOptions& o) {
    return std::move(placeAndRouteRanked(g, cfg, o, 1).front());
}

PnrResult reusePlacement(const step::Graph& g, const HwConfig& cfg, const nlohmann::json& report,
                         const std::string& where) {
    const nlohmann::json& pnr = report.contains("pnr") ? report["pnr"] : report;
    if (!pnr.is_object() || !pnr.contains("placement"))
        throw BadInput(fmt::format("{}: {}", where,
                                   expectedFound("a pnr.json or a cycle run's result.json with a placement",
                                                 pnr.is_object() && pnr.contains("reused_from")
                                                     ? "a run that reused " + pnr["reused_from"].dump()
                                                     : "no \"placement\"")));
    PnrResult r;
    r.placement = Placement::fromJson(pnr["placement"], g, ChipLayout(cfg.chip), where);
    r.report = pnr;
    r.report.erase("placement");
    r.report["reused_from"] = where;
    r.report["seconds"] = {{"lower", 0.0}, {"place", 0.0}, {"route", 0.0}};
    if (!r.report.contains("warnings")) r.report["warnings"] = nlohmann::json::array();
    return r;
}

} // namespace steprdu::hw::pnr
