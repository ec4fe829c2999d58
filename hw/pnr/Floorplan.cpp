#include "hw/pnr/Floorplan.h"

#include <fmt/format.h>

namespace steprdu::hw::pnr {

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
                             g.op(i).name(), kindName(site.kind), siteName(site.row, site.col, site.kind));
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
                         x(a.col), y(a.row), agcuName(a.index));
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
