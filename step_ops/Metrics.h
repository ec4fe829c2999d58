#pragma once
// Symbolic metrics of a graph (the STeP frontend's analysis): sums of per-operator expressions, and their
// values once data-dependent symbols are bound (e.g. tokens routed to each expert).
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "step_ops/Graph.h"

namespace steprdu::step {

struct SymbolicMetrics {
    Expr offChipBytes;     // every off-chip load and store
    Expr onChipBytes;      // the figures' accounting (STeP artifact, mode 1)
    Expr onChipBytesPaper; // the paper's §4.2 formulas
    Expr flops;            // FLOPs of every Map/Accum/Scan/MapAccum application, padded rows included
    std::int64_t allocatedFlopsPerCycle = 0; // sum of compute_bw over operators with a FLOP-costed function
};

struct BoundMetrics {
    std::int64_t offChipBytes = 0, onChipBytes = 0, onChipBytesActive = 0, onChipBytesPaper = 0, flops = 0;
    std::int64_t allocatedFlopsPerCycle = 0;
};

SymbolicMetrics analyzeGraph(const Graph& g);
// Every symbol the graph's stream shapes and tile types name: the names a binding may give a count.
std::set<std::string> graphSymbols(const Graph& g);
// Throws BadInput naming a bound name that is not one of the graph's symbols, and the symbols it has.
void checkBindingNames(const Graph& g, const Bindings& b);
// Binds symbols; onChipBytesActive leaves out operators no element reaches (unused experts, empty regions).
// Throws BadInput listing the symbols left unbound.
BoundMetrics bindMetrics(const Graph& g, const SymbolicMetrics& m, const Bindings& b);

} // namespace steprdu::step
