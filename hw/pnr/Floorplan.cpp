#include "hw/pnr/Floorplan.h"

#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "hw/arch/MeshPath.h"
#include "util/Error.h"

namespace steprdu::hw::pnr {

FloorplanColors parseFloorplanColors(const std::string& s) {
    if (s == "auto") return FloorplanColors::Auto;
    if (s == "group") return FloorplanColors::Group;
    if (s == "kind") return FloorplanColors::Kind;
    if (s == "operator") return FloorplanColors::Operator;
    throw BadInput("--color-by: " + expectedFound("auto, group, kind or operator", "'" + s + "'"));
}

namespace {

constexpr int kMaxLegend = 12;
// Eleven colours told apart at a glance (Tableau's); grey stands for "shared" and for what the legend merges.
constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                                    "#e377c2", "#bcbd22", "#17becf", "#aec7e8", "#ffbb78"};
constexpr const char* kGrey = "#9a9a9a";
constexpr const char* kShared = "shared";

std::string prefixOf(const std::string& name) {
    const auto dot = name.find('.');
    return dot == std::string::npos || dot == 0 ? kShared : name.substr(0, dot);
}

std::string hueFill(const std::string& name, int saturation, int lightness) {
    return fmt::format("hsl({},{}%,{}%)", std::hash<std::string>{}(name) % 360, saturation, lightness);
}

// What each placed operator is drawn as: its legend entry, whose colour it takes.
struct Coloring {
    struct Entry {
        std::string key, fill;
        std::vector<int> ops;
    };
    FloorplanColors mode = FloorplanColors::Operator; // resolved: never Auto
    std::vector<Entry> entries;
    std::vector<int> entryOf; // per operator, -1 for one without units of its own
};

Coloring colorOperators(const step::Graph& g, const std::vector<int>& shown, FloorplanColors colors,
                        const PnrResult& r) {
    Coloring c;
    c.entryOf.assign(g.numOps(), -1);
    if (colors == FloorplanColors::Auto) {
        std::vector<std::string> groups;
        for (int i : shown)
            if (auto k = prefixOf(g.op(i).name());
                k != kShared && std::find(groups.begin(), groups.end(), k) == groups.end())
                groups.push_back(k);
        colors = !groups.empty() && groups.size() + 1 < shown.size() ? FloorplanColors::Group
                 : static_cast<int>(shown.size()) <= kMaxLegend      ? FloorplanColors::Operator
                                                                     : FloorplanColors::Kind;
    }
    c.mode = colors;
    if (colors == FloorplanColors::Operator) {
        for (int i : shown) {
            c.entryOf[i] = static_cast<int>(c.entries.size());
            c.entries.push_back({g.op(i).name(), hueFill(g.op(i).name(), 70, 55), {i}});
        }
        return c;
    }
    // Keys in order of first appearance, counted by units; past the legend's size the keys with the fewest
    // units share one grey entry.
    auto keyOf = [&](int op) {
        return colors == FloorplanColors::Group ? prefixOf(g.op(op).name()) : g.op(op).kind();
    };
    std::vector<std::string> keys;
    std::map<std::string, std::size_t> units;
    for (int i : shown) {
        const std::string k = keyOf(i);
        if (!units.count(k)) keys.push_back(k);
        units[k] += r.placement.ops[i].units.size();
    }
    std::vector<std::string> kept = keys;
    if (static_cast<int>(keys.size()) > kMaxLegend) {
        std::stable_sort(kept.begin(), kept.end(),
                         [&](const auto& a, const auto& b) { return units[a] > units[b]; });
        kept.resize(kMaxLegend - 1);
    }
    std::map<std::string, int> entryOfKey;
    int colour = 0;
    for (const auto& k : keys) {
        if (std::find(kept.begin(), kept.end(), k) == kept.end()) continue;
        entryOfKey[k] = static_cast<int>(c.entries.size());
        const bool grey = k == kShared || colour == static_cast<int>(std::size(kPalette));
        c.entries.push_back({k, grey ? kGrey : kPalette[colour++], {}});
    }
    const int merged = static_cast<int>(keys.size() - kept.size());
    if (merged > 0) {
        entryOfKey[""] = static_cast<int>(c.entries.size());
        c.entries.push_back(
            {fmt::format("{} more {}s", merged, colors == FloorplanColors::Group ? "group" : "kind"),
             kGrey,
             {}});
    }
    for (int i : shown) {
        const std::string k = keyOf(i);
        const int e = entryOfKey.count(k) ? entryOfKey[k] : entryOfKey[""];
        c.entryOf[i] = e;
        c.entries[e].ops.push_back(i);
    }
    return c;
}

} // namespace

std::string floorplanSvg(const step::Graph& g, const HwConfig& cfg, const PnrResult& r,
                         FloorplanColors colors) {
    const ChipLayout L(cfg.chip);
    constexpr int kCell = 12, kMargin = 24, kLegendRow = 11;
    // The operators with units of their own, coloured by their legend entry.
    std::vector<int> shown;
    for (int i = 0; i < g.numOps(); ++i)
        if (!r.placement.ops[i].folded && !r.placement.ops[i].units.empty()) shown.push_back(i);
    const Coloring c = colorOperators(g, shown, colors, r);
    const bool perOperator = c.mode == FloorplanColors::Operator;
    auto fillOf = [&](int op) {
        return c.entryOf[op] < 0 ? std::string(kGrey) : c.entries[c.entryOf[op]].fill;
    };
    const int gridWidth = L.cols() * kCell + 2 * kMargin, gridHeight = L.rows() * kCell + 2 * kMargin;
    const int perColumn = std::max(1, (gridHeight - kMargin) / kLegendRow);
    const int legendColumns = (static_cast<int>(c.entries.size()) + perColumn - 1) / perColumn;
    // The legend: colour to operator, with its units and the lanes of its widest output stream; or colour to
    // group or kind, with its operators and units. Columns as wide as their longest line.
    std::vector<std::string> legend;
    for (std::size_t k = 0; k < c.entries.size(); ++k) {
        const auto& e = c.entries[k];
        std::string text;
        if (perOperator) {
            const int i = e.ops[0];
            const auto& units = r.placement.ops[i].units;
            int lanes = 1;
            for (int o = 0; o < static_cast<int>(g.op(i).outputs().size()); ++o)
                lanes = std::max(lanes, r.placement.lanes(i, o));
            text = fmt::format("{} ({} {}{})", e.key, units.size(),
                               kindName(units.front().kind) + (units.size() > 1 ? "s" : ""),
                               lanes > 1 ? fmt::format(", {} lanes out", lanes) : "");
        } else {
            std::map<UnitKind, int> count;
            for (int i : e.ops)
                for (const auto& u : r.placement.ops[i].units)
                    ++count[u.kind];
            for (const auto& st : r.placement.stages)
                if (c.entryOf[st.consumer] == static_cast<int>(k)) count[UnitKind::Pmu] += st.pmus.size();
            text = fmt::format("{} ({} operator{}", e.key, e.ops.size(), e.ops.size() > 1 ? "s" : "");
            for (UnitKind u : {UnitKind::Pcu, UnitKind::Pmu, UnitKind::Agcu})
                if (count[u] > 0)
                    text += fmt::format(", {} {}{}", count[u], kindName(u), count[u] > 1 ? "s" : "");
            text += ")";
        }
        legend.push_back(text);
    }
    std::size_t longest = 0;
    for (const auto& t : legend)
        longest = std::max(longest, t.size());
    const int legendColumn = std::max(190, 16 + 5 * static_cast<int>(longest));
    const int width = gridWidth + legendColumns * legendColumn, height = gridHeight;
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
    // Units in the colour of the operator they host; a stage PMU paler, in its consumer's.
    for (int i : shown)
        for (const auto& site : r.placement.ops[i].units) {
            if (site.kind == UnitKind::Agcu) continue;
            s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" "
                             "stroke=\"{}\"><title>{} ({} {})</title></rect>\n",
                             kMargin + site.col * kCell + 1, kMargin + site.row * kCell + 1, kCell - 2,
                             kCell - 2, fillOf(i), site.kind == UnitKind::Pcu ? "black" : "none",
                             g.op(i).name(), kindName(site.kind), siteName(site.row, site.col, site.kind));
        }
    for (const auto& st : r.placement.stages)
        for (const auto& site : st.pmus)
            s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" "
                             "fill-opacity=\"0.4\"><title>stage of {} input {}</title></rect>\n",
                             kMargin + site.col * kCell + 1, kMargin + site.row * kCell + 1, kCell - 2,
                             kCell - 2, fillOf(st.consumer), g.op(st.consumer).name(), st.port);
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
        const std::string stroke = perOperator || net.op < 0 ? hueFill(net.name, 80, 35) : fillOf(net.op);
        s += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-opacity=\"0.6\" "
                         "stroke-width=\"{:.2f}\"><title>{}</title></polyline>\n",
                         points, stroke, std::clamp(4.0 * net.rate / flit, 0.3, 4.0), net.name);
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
    // Labels at the centre of each entry's PCUs and PMUs where it has four or more: an operator's compute
    // group or buffer, or a group (an expert, a region). Kinds are spread over the chip and go unlabelled.
    for (const auto& e : c.entries) {
        if (c.mode == FloorplanColors::Kind || e.fill == kGrey) continue;
        double cx = 0, cy = 0;
        int n = 0;
        for (int i : e.ops)
            for (const auto& u : r.placement.ops[i].units)
                if (u.kind != UnitKind::Agcu || perOperator) {
                    cx += x(u.col);
                    cy += y(u.row);
                    ++n;
                }
        if (n < 4) continue;
        s += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"middle\" font-weight=\"bold\" "
                         "stroke=\"white\" stroke-width=\"2\" paint-order=\"stroke\">{}</text>\n",
                         cx / n, cy / n, e.key);
    }
    for (std::size_t k = 0; k < c.entries.size(); ++k) {
        const int lx = gridWidth + static_cast<int>(k) / perColumn * legendColumn,
                  ly = kMargin + static_cast<int>(k) % perColumn * kLegendRow;
        s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"8\" height=\"8\" fill=\"{}\"/>"
                         "<text x=\"{}\" y=\"{}\">{}</text>\n",
                         lx, ly, c.entries[k].fill, lx + 11, ly + 7, legend[k]);
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
