#include "hw/pnr/Placement.h"

#include <set>

#include <fmt/format.h>

#include "util/Error.h"

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

namespace {

std::string nameOf(const Site& s) {
    return s.kind == UnitKind::Agcu ? agcuName(s.agcu) : siteName(s.row, s.col, s.kind);
}

nlohmann::json namesOf(const std::vector<Site>& sites) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& s : sites)
        out.push_back(nameOf(s));
    return out;
}

} // namespace

nlohmann::json Placement::toJson(const step::Graph& g) const {
    nlohmann::json opsJson = nlohmann::json::array();
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const OpPlacement& p = ops[i];
        opsJson.push_back({{"operator", g.op(static_cast<int>(i)).name()},
                           {"units", namesOf(p.units)},
                           {"folded", p.folded},
                           {"time_shared", p.timeShared},
                           {"lanes", p.lanes},
                           {"element_rates", p.elementRates}});
    }
    nlohmann::json stagesJson = nlohmann::json::array();
    for (const auto& s : stages)
        stagesJson.push_back({{"consumer", s.consumer}, {"port", s.port}, {"pmus", namesOf(s.pmus)}});
    nlohmann::json legs = nlohmann::json::array();
    for (const auto& [k, column] : columnFirst)
        legs.push_back({k.consumer, k.port, k.leg, k.lane, column});
    return {{"operators", opsJson}, {"stages", stagesJson}, {"column_first", legs}};
}

Placement Placement::fromJson(const nlohmann::json& j, const step::Graph& g, const ChipLayout& layout,
                              const std::string& where) {
    auto bad = [&](const std::string& what, const std::string& expected, const std::string& found) {
        return BadInput(fmt::format("{}: placement {}: {}", where, what, expectedFound(expected, found)));
    };
    auto site = [&](const nlohmann::json& v, const std::string& what) {
        const auto u = v.is_string() ? parseUnitName(v.get<std::string>()) : std::nullopt;
        if (!u) throw bad(what, "a unit name (pcu_r<row>c<col>, pmu_r<row>c<col> or agcu<index>)", v.dump());
        Site s;
        s.kind = u->kind;
        if (u->kind == UnitKind::Agcu) {
            if (u->index >= static_cast<std::int64_t>(layout.agcus().size()))
                throw bad(what, fmt::format("one of the chip's {} AGCUs", layout.agcus().size()), v.dump());
            s.agcu = static_cast<int>(u->index);
            s.row = layout.agcus()[s.agcu].row; // the switch it attaches to, as the placers record it
            s.col = layout.agcus()[s.agcu].col;
            return s;
        }
        if (u->row >= layout.rows() || u->col >= layout.cols() ||
            layout.siteKind(static_cast<int>(u->row), static_cast<int>(u->col)) != u->kind)
            throw bad(what,
                      fmt::format("a {} site of the chip's {} x {} grid", kindName(u->kind), layout.rows(),
                                  layout.cols()),
                      v.dump());
        s.row = static_cast<int>(u->row);
        s.col = static_cast<int>(u->col);
        return s;
    };
    Placement p;
    try {
        const auto& opsJson = j.at("operators");
        if (!opsJson.is_array() || opsJson.size() != static_cast<std::size_t>(g.numOps()))
            throw bad("operators", fmt::format("the graph's {} operators", g.numOps()),
                      opsJson.is_array() ? std::to_string(opsJson.size()) : opsJson.dump());
        for (int i = 0; i < g.numOps(); ++i) {
            const auto& o = opsJson[i];
            const std::string name = o.at("operator").get<std::string>();
            if (name != g.op(i).name())
                throw bad(fmt::format("operators[{}]", i),
                          fmt::format("'{}' (a placement of this graph)", g.op(i).name()), "'" + name + "'");
            OpPlacement op;
            for (const auto& u : o.at("units"))
                op.units.push_back(site(u, "operator '" + name + "'"));
            if (op.units.empty()) throw bad("operator '" + name + "'", "at least one unit", "none");
            op.folded = o.at("folded").get<bool>();
            op.timeShared = o.at("time_shared").get<bool>();
            op.lanes = o.at("lanes").get<std::vector<int>>();
            op.elementRates = o.at("element_rates").get<std::vector<double>>();
            const std::size_t outs = g.op(i).outputs().size();
            if (op.elementRates.size() != outs)
                throw bad("operator '" + name + "'", fmt::format("{} planned rates (one per output)", outs),
                          std::to_string(op.elementRates.size()));
            for (int l : op.lanes)
                if (l < 1) throw bad("operator '" + name + "'", "lanes >= 1", std::to_string(l));
            p.ops.push_back(std::move(op));
        }
        for (const auto& s : j.at("stages")) {
            StagePlacement st;
            st.consumer = s.at("consumer").get<int>();
            st.port = s.at("port").get<int>();
            if (st.consumer < 0 || st.consumer >= g.numOps() ||
                st.port >= static_cast<int>(g.op(st.consumer).inputs().size()) || st.port < 0)
                throw bad("stages", "an input of one of the graph's operators",
                          fmt::format("operator {} port {}", st.consumer, st.port));
            for (const auto& u : s.at("pmus")) {
                st.pmus.push_back(site(u, "a stage buffer"));
                if (st.pmus.back().kind != UnitKind::Pmu)
                    throw bad("a stage buffer", "PMUs", u.get<std::string>());
            }
            p.stages.push_back(std::move(st));
        }
        for (const auto& l : j.at("column_first"))
            p.columnFirst[{l.at(0).get<int>(), l.at(1).get<int>(), l.at(2).get<int>(), l.at(3).get<int>()}] =
                l.at(4).get<bool>();
    } catch (const nlohmann::json::exception& e) {
        throw BadInput(fmt::format("{}: placement: malformed ({})", where, e.what()));
    }
    return p;
}

} // namespace steprdu::hw::pnr
