#include "step_ops/Metrics.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/Error.h"

namespace steprdu::step {

SymbolicMetrics analyzeGraph(const Graph& g) {
    SymbolicMetrics m;
    std::vector<Expr> offChip, onChip, onChipPaper, flops;
    for (int i = 0; i < g.numOps(); ++i) {
        const Operator& op = g.op(i);
        offChip.push_back(op.offChipBytes());
        onChip.push_back(op.onChipBytes());
        onChipPaper.push_back(op.onChipBytesPaper());
        flops.push_back(op.flops());
        m.allocatedFlopsPerCycle += op.computeBw();
    }
    m.offChipBytes = Expr::sum(std::move(offChip));
    m.onChipBytes = Expr::sum(std::move(onChip));
    m.onChipBytesPaper = Expr::sum(std::move(onChipPaper));
    m.flops = Expr::sum(std::move(flops));
    return m;
}

std::set<std::string> graphSymbols(const Graph& g) {
    std::set<std::string> out;
    auto add = [&](const Expr& e) {
        for (auto& s : e.symbols())
            out.insert(s);
    };
    for (int i = 0; i < g.numOps(); ++i)
        for (const auto& t : g.op(i).outputs()) {
            for (const auto& d : t.shape.dims())
                add(d.size);
            add(t.dtype.tile.rows);
            add(t.dtype.tile.cols);
        }
    return out;
}

void checkBindingNames(const Graph& g, const Bindings& b) {
    std::set<std::string> known;
    for (const auto& [name, count] : b) {
        if (known.empty()) known = graphSymbols(g);
        if (known.count(name)) continue;
        throw BadInput(fmt::format(
            "bindings: '{}' is not a symbol of the graph; {}", name,
            expectedFound(known.empty() ? std::string("no bindings (the graph has no data-dependent sizes)")
                                        : "one of " + fmt::format("{}", fmt::join(known, ", ")),
                          "'" + name + "'")));
    }
}

namespace {
std::int64_t need(const Expr& e, const Bindings& b, const char* what) {
    auto v = e.eval(b);
    if (!v) {
        std::string syms;
        for (auto& s : e.bind(b).symbols())
            syms += (syms.empty() ? "" : ", ") + s;
        throw BadInput(fmt::format("metrics: {} depends on unbound symbols: {}; give each its count with "
                                   "g.bind(name, count) in Python, the graph file's \"bindings\" object, or "
                                   "the testbench's knobs (the interpreter runs without them and reports the "
                                   "counts it observed)",
                                   what, syms));
    }
    return *v;
}
} // namespace

BoundMetrics bindMetrics(const Graph& g, const SymbolicMetrics& m, const Bindings& b) {
    BoundMetrics r;
    r.offChipBytes = need(m.offChipBytes, b, "off-chip traffic");
    r.onChipBytes = need(m.onChipBytes, b, "on-chip requirement");
    r.onChipBytesPaper = need(m.onChipBytesPaper, b, "on-chip requirement (paper)");
    r.flops = need(m.flops, b, "FLOPs");
    r.allocatedFlopsPerCycle = m.allocatedFlopsPerCycle;
    for (int i = 0; i < g.numOps(); ++i) {
        const Operator& op = g.op(i);
        auto bytes = op.onChipBytes();
        if (bytes.constValue() == 0) continue;
        if (need(op.volume(), b, "operator volume") != 0)
            r.onChipBytesActive += need(bytes, b, "on-chip requirement");
    }
    return r;
}

} // namespace steprdu::step
