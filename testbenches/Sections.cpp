#include "testbenches/Sections.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "hw/pnr/Lowering.h"
#include "step_ops/Metrics.h"
#include "testbenches/Runner.h"
#include "util/Error.h"

namespace steprdu::tb {

namespace {

constexpr int kNone = -1;

// Each operator's part: by name prefix; outside every part, its inputs' latest part, or, with no inputs, its
// consumers' earliest (a load that only reads memory runs where its data are used).
std::vector<int> partsOf(const step::Graph& g, const std::vector<std::string>& phases) {
    const int n = g.numOps();
    std::vector<int> part(n, kNone);
    std::vector<std::vector<int>> consumers(n);
    for (int i = 0; i < n; ++i) {
        for (std::size_t p = 0; p < phases.size() && part[i] == kNone; ++p)
            if (g.op(i).name().compare(0, phases[p].size(), phases[p]) == 0) part[i] = static_cast<int>(p);
        for (const auto& in : g.op(i).inputs())
            consumers[in.op].push_back(i);
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 0; i < n; ++i) {
            if (part[i] != kNone) continue;
            int p = kNone;
            const auto& ins = g.op(i).inputs();
            if (!ins.empty()) {
                bool all = true;
                for (const auto& in : ins) {
                    all = all && part[in.op] != kNone;
                    p = std::max(p, part[in.op]);
                }
                if (!all) p = kNone;
            } else {
                for (int c : consumers[i])
                    if (part[c] != kNone) p = p == kNone ? part[c] : std::min(p, part[c]);
            }
            if (p >= 0) {
                part[i] = p;
                changed = true;
            }
        }
    }
    for (auto& p : part)
        p = std::max(p, 0); // a feedback loop of glue operators: the first part
    return part;
}

std::string keyOf(const step::Graph& g, step::StreamRef r) {
    return fmt::format("{}.{}", g.op(r.op).name(), r.out);
}

// A one-element stream a load waits for: shape [1], nothing but the signal.
bool isSignal(const step::StreamType& t, const step::Bindings& b) {
    const auto& d = t.shape.dims();
    return d.size() == 1 && d[0].kind == step::DimKind::Static && d[0].size.eval(b) == std::int64_t{1};
}

struct Cut {
    std::int64_t rows = 0, cols = 0, tiles = 0;
    std::vector<std::int64_t> shape; // the loaded stream's out_shape
};

// A stream that crosses a cut through memory: f32 tiles of a static size in a static shape [1, d1, ...].
Cut cutOf(const step::Graph& g, step::StreamRef r, const step::Bindings& b, const std::string& into) {
    const auto& t = g.op(r.op).outputs().at(r.out);
    auto refuse = [&](const std::string& why) {
        throw BadInput(fmt::format("sections: the stream {} ({}) from {} into {} crosses a cut, but {}; only "
                                   "completion signals and static tile streams can",
                                   keyOf(g, r), t.str(), g.op(r.op).where(), into, why));
    };
    if (t.dtype.kind != step::DataType::Kind::Tile || t.dtype.tile.elem != step::ElemType::F32)
        refuse("it does not carry f32 tiles");
    Cut c;
    const auto rows = t.dtype.tile.rows.eval(b), cols = t.dtype.tile.cols.eval(b);
    if (!rows || !cols) refuse("its tiles have a data-dependent size");
    c.rows = *rows;
    c.cols = *cols;
    const auto& dims = t.shape.dims();
    c.tiles = 1;
    for (std::size_t i = 0; i < dims.size(); ++i) {
        // A data-dependent size the workload binds (its trace fixes it) is as good as a static one.
        const auto v = dims[i].size.eval(b);
        if (dims[i].kind == step::DimKind::Ragged || !v) refuse("its shape is data-dependent and unbound");
        if (i == 0 && *v != 1) refuse("its outermost dimension is not 1");
        if (i > 0) c.shape.push_back(*v);
        c.tiles *= *v;
    }
    if (c.shape.empty()) c.shape.push_back(1);
    return c;
}

// The operators of parts [a, b], and what crosses into and out of them.
Section build(const Workload& w, const nlohmann::json& whole, const std::vector<int>& part, int a, int b) {
    const step::Graph& g = w.graph;
    Section s;
    for (int p = a; p <= b; ++p)
        s.phases.push_back(w.phases[p]);
    nlohmann::json j = {{"format", whole.at("format")}, {"tensors", whole.at("tensors")}};
    j["operators"] = nlohmann::json::array();
    auto inside = [&](int op) { return part[op] >= a && part[op] <= b; };
    auto addCutTensor = [&](const std::string& name, const Cut& c) {
        j["tensors"].push_back({{"name", name},
                                {"rows", c.tiles * c.rows},
                                {"cols", c.cols},
                                {"elem", "f32"},
                                {"init", "zeros"},
                                {"seed", 0},
                                {"class", "activations"}});
    };
    for (int i = 0; i < g.numOps(); ++i) {
        if (!inside(i)) continue;
        const auto& op = g.op(i);
        nlohmann::json oj = whole["operators"][i];
        nlohmann::json inputs = nlohmann::json::array();
        for (std::size_t port = 0; port < op.inputs().size(); ++port) {
            const step::StreamRef in = op.inputs()[port];
            if (inside(in.op)) {
                inputs.push_back(oj["inputs"][port]);
                continue;
            }
            if (part[in.op] > b)
                throw BadInput(fmt::format("sections: {} reads {} of a later part ({})", op.where(),
                                           keyOf(g, in), w.phases[part[in.op]]));
            const auto& t = g.op(in.op).outputs().at(in.out);
            if (op.kind() == "LinearOffChipLoad" && isSignal(t, w.bindings)) continue; // the cut is the wait
            const Cut c = cutOf(g, in, w.bindings, op.where());
            const std::string tensor = "cut." + keyOf(g, in);
            addCutTensor(tensor, c);
            std::vector<std::int64_t> stride(c.shape.size(), 1);
            for (int k = static_cast<int>(c.shape.size()) - 2; k >= 0; --k)
                stride[k] = stride[k + 1] * c.shape[k + 1];
            j["operators"].push_back({{"kind", "LinearOffChipLoad"},
                                      {"name", "cut_load." + keyOf(g, in)},
                                      {"args",
                                       {{"tensor", tensor},
                                        {"tile_rows", c.rows},
                                        {"tile_cols", c.cols},
                                        {"stride", stride},
                                        {"out_shape", c.shape},
                                        {"par_dispatch", 16}}},
                                      {"inputs", nlohmann::json::array()}});
            inputs.push_back(nlohmann::json::array({"cut_load." + keyOf(g, in), 0}));
        }
        oj["inputs"] = inputs;
        j["operators"].push_back(oj);
    }
    // What leaves for a later section: stored, or, a signal a load there waits for, sunk.
    for (int i = 0; i < g.numOps(); ++i) {
        if (inside(i)) continue;
        const auto& op = g.op(i);
        for (const auto& in : op.inputs()) {
            if (!inside(in.op) || part[i] < a) continue;
            const auto& t = g.op(in.op).outputs().at(in.out);
            const nlohmann::json from = nlohmann::json::array({g.op(in.op).name(), in.out});
            if (op.kind() == "LinearOffChipLoad" && isSignal(t, w.bindings)) {
                j["operators"].push_back({{"kind", "Sink"},
                                          {"name", "cut_sink." + keyOf(g, in)},
                                          {"args", nlohmann::json::object()},
                                          {"inputs", nlohmann::json::array({from})}});
                continue;
            }
            const Cut c = cutOf(g, in, w.bindings, op.where());
            const std::string tensor = "cut." + keyOf(g, in);
            addCutTensor(tensor, c);
            s.cutBytes += c.tiles * c.rows * c.cols * 4;
            j["operators"].push_back({{"kind", "LinearOffChipStore"},
                                      {"name", "cut_store." + keyOf(g, in)},
                                      {"args", {{"tensor", tensor}, {"par_dispatch", 16}}},
                                      {"inputs", nlohmann::json::array({from})}});
        }
    }
    // A cut tensor both stored and loaded here is listed once.
    nlohmann::json tensors = nlohmann::json::array();
    std::set<std::string> seen;
    for (const auto& t : j["tensors"])
        if (seen.insert(t["name"].get<std::string>()).second) tensors.push_back(t);
    j["tensors"] = tensors;
    s.graph = std::move(j);
    return s;
}

} // namespace

nlohmann::json sectionGraph(const Section& s, const std::map<std::string, std::vector<float>>& values) {
    nlohmann::json j = s.graph;
    for (auto& t : j["tensors"]) {
        auto it = values.find(t["name"].get<std::string>());
        if (it != values.end()) t["values"] = it->second;
    }
    return j;
}

Workload sectionWorkload(const Workload& w, const Section& s, const nlohmann::json& graph) {
    Workload out;
    out.graph = step::Graph::fromJson(graph);
    const auto symbols = step::graphSymbols(out.graph);
    for (const auto& [name, v] : w.bindings)
        if (symbols.count(name)) out.bindings[name] = v;
    for (const auto& [name, v] : w.rateBindings)
        if (symbols.count(name)) out.rateBindings[name] = v;
    out.params = w.params;
    out.channelDepth = w.channelDepth;
    out.depthByProducer = w.depthByProducer;
    out.timingElemBytes = w.timingElemBytes;
    out.phases = s.phases;
    return out;
}

bool fitsChip(const Workload& w, const hw::HwConfig& cfg) {
    hw::HwConfig strict = cfg;
    strict.pnr.on_overflow = hw::OnOverflow::Error;
    try {
        hw::pnr::lower(w.graph, strict, loweringOptions(w));
        return true;
    } catch (const BadInput& e) {
        if (std::string(e.what()).find(" alone needs ") != std::string::npos) throw; // no cut helps
        return false;
    }
}

std::vector<Section> cutIntoSections(const Workload& w, const hw::HwConfig& cfg) {
    if (w.phases.empty())
        throw BadInput("pnr.on_overflow: sections: the graph does not fit and names no parts to cut it at "
                       "(a testbench's phases); use shrink, or a larger chip");
    const nlohmann::json whole = w.graph.toJson();
    const std::vector<int> part = partsOf(w.graph, w.phases);
    auto fits = [&](const Section& s) { return fitsChip(sectionWorkload(w, s, s.graph), cfg); };
    std::vector<Section> sections;
    const int parts = static_cast<int>(w.phases.size());
    for (int a = 0; a < parts;) {
        Section s = build(w, whole, part, a, a);
        if (!fits(s)) {
            s.shrink = true;
            sections.push_back(std::move(s));
            ++a;
            continue;
        }
        int b = a;
        while (b + 1 < parts) {
            Section more = build(w, whole, part, a, b + 1);
            if (!fits(more)) break;
            s = std::move(more);
            ++b;
        }
        sections.push_back(std::move(s));
        a = b + 1;
    }
    return sections;
}

} // namespace steprdu::tb
