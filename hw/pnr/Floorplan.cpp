#include "hw/pnr/Floorplan.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "hw/arch/MeshPath.h"

namespace steprdu::hw::pnr {

std::string floorplanSvg(const step::Graph& g, const HwConfig& cfg, const PnrResult& r) {
    const ChipLayout L(cfg.chip);
    constexpr int kCell = 12, kMargin = 24, kLegendRow = 11, kLegendColumn = 190;
    // The operators with units of their own, for the legend: a swatch, the name and the units.
    std::vector<int> shown;
    for (int i = 0; i < g.numOps(); ++i)
        if (!r.placement.ops[i].folded && !r.placement.ops[i].units.empty()) shown.push_back(i);
    const int gridWidth = L.cols() * kCell + 2 * kMargin, gridHeight = L.rows() * kCell + 2 * kMargin;
    const int perColumn = std::max(1, (gridHeight - kMargin) / kLegendRow);
    const int legendColumns = (static_cast<int>(shown.size()) + perColumn - 1) / perColumn;
    const int width = gridWidth + legendColumns * kLegendColumn, height = gridHeight;
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
            const int dir = l % kDirections;
            row += (dir == South) - (dir == North);
            col += (dir == East) - (dir == West);
            points += fmt::format(" {},{}", x(col), y(row));
        }
        s += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"hsla({},80%,35%,0.6)\" "
                         "stroke-width=\"{:.2f}\"><title>{}</title></polyline>\n",
                         points, hue(net.name), std::clamp(4.0 * net.rate / flit, 0.3, 4.0), net.name);
    }
    // Links left over-subscribed: red, beside the routes (each direction on its own side), with their load in
    // link bandwidths.
    for (std::size_t l = 0; l < r.routing.planned.size(); ++l) {
        const double load = r.routing.planned[l] / r.routing.capacity;
        if (load <= 1 + 1e-9) continue;
        const int sw = static_cast<int>(l) / kDirections, dir = static_cast<int>(l) % kDirections;
        const int row = sw / L.cols(), col = sw % L.cols();
        const int row2 = row + (dir == South) - (dir == North), col2 = col + (dir == East) - (dir == West);
        const int dx = dir == North ? -3 : dir == South ? 3 : 0, dy = dir == East ? -3 : dir == West ? 3 : 0;
        s += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"red\" stroke-width=\"2\">"
                         "<title>{}.{}: {:.2f}x its bandwidth</title></line>\n",
                         x(col) + dx, y(row) + dy, x(col2) + dx, y(row2) + dy,
                         ChipLayout::switchName(row, col), directionName(dir), load);
        s += fmt::format(
            "<text x=\"{}\" y=\"{}\" fill=\"red\" font-size=\"5\" text-anchor=\"{}\">{:.1f}x</text>\n",
            (x(col) + x(col2)) / 2 + 3 * dx, (y(row) + y(row2)) / 2 + 3 * dy + 2,
            dx < 0   ? "end"
            : dx > 0 ? "start"
                     : "middle",
            load);
    }
    // Labels on compute groups and buffers of several units, at their centre.
    for (int i : shown) {
        const auto& units = r.placement.ops[i].units;
        if (units.size() < 4) continue;
        double cx = 0, cy = 0;
        for (const auto& u : units) {
            cx += x(u.col);
            cy += y(u.row);
        }
        s += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"middle\" font-weight=\"bold\" "
                         "stroke=\"white\" stroke-width=\"2\" paint-order=\"stroke\">{}</text>\n",
                         cx / units.size(), cy / units.size(), g.op(i).name());
    }
    // The legend: colour to operator, with its units and the lanes of its widest output stream.
    for (std::size_t k = 0; k < shown.size(); ++k) {
        const int i = shown[k];
        const int lx = gridWidth + static_cast<int>(k) / perColumn * kLegendColumn,
                  ly = kMargin + static_cast<int>(k) % perColumn * kLegendRow;
        const auto& units = r.placement.ops[i].units;
        int lanes = 1;
        for (int o = 0; o < static_cast<int>(g.op(i).outputs().size()); ++o)
            lanes = std::max(lanes, r.placement.lanes(i, o));
        s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"8\" height=\"8\" fill=\"hsl({},70%,55%)\"/>"
                         "<text x=\"{}\" y=\"{}\">{} ({} {}{})</text>\n",
                         lx, ly, hue(g.op(i).name()), lx + 11, ly + 7, g.op(i).name(), units.size(),
                         kindName(units.front().kind) + (units.size() > 1 ? "s" : ""),
                         lanes > 1 ? fmt::format(", {} lanes out", lanes) : "");
    }
    s += fmt::format(
        "<text x=\"{}\" y=\"14\">{}: {} PCUs, {} PMUs, {} AGCUs used; routes by bandwidth; over-subscribed "
        "links in red</text>\n",
        kMargin, cfg.name, r.report["units"]["pcu"]["used"].get<int>(),
        r.report["units"]["pmu"]["used"].get<int>(), r.report["units"]["agcu"]["used"].get<int>());
    s += "</svg>\n";
    return s;
}

} // namespace steprdu::hw::pnr
