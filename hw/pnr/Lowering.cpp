#include "hw/pnr/Lowering.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "util/Error.h"

namespace steprdu::hw::pnr {

namespace {

// The kind of hardware an operator kind runs on.
Role roleOf(const std::string& k) {
    if (k == "LinearOffChipLoad" || k == "LinearOffChipStore" || k == "RandomOffChipLoad" ||
        k == "RandomOffChipStore" || k == "Source")
        return Role::Agcu;
    if (k == "Bufferize" || k == "Streamify" || k == "RepeatStatic" || k == "Expand") return Role::Pmu;
    if (k == "Flatten" || k == "Reshape" || k == "Promote" || k == "Zip" || k == "Broadcast" || k == "Sink" ||
        k == "Placeholder")
        return Role::Folded;
    return Role::Pcu;
}

// True if the operator's consumers read its results from a memory unit (loads, write_back_mu operators).
bool writesMemory(const step::Operator& op) {
    if (op.kind() == "LinearOffChipLoad" || op.kind() == "RandomOffChipLoad") return true;
    const auto& a = op.args();
    return a.is_object() && a.contains("write_back_mu") && a["write_back_mu"].is_boolean() &&
           a["write_back_mu"].get<bool>();
}

int origin(const step::Graph& g, int op) {
    for (int guard = 0; guard < g.numOps() && roleOf(g.op(op).kind()) == Role::Folded; ++guard) {
        if (g.op(op).inputs().empty()) break;
        op = g.op(op).inputs()[0].op;
    }
    return op;
}

} // namespace

int VirtualUnits::total(UnitKind k) const {
    int t = 0;
    for (std::size_t i = 0; i < pcus.size(); ++i) {
        if (k == UnitKind::Pcu) t += pcus[i];
        if (k == UnitKind::Pmu) {
            t += pmus[i];
            for (int s : stagePmus[i])
                t += s;
        }
    }
    return t;
}

int VirtualUnits::unitsOf(int op) const {
    switch (role[op]) {
    case Role::Pcu:
        return sharesWith[op] >= 0 ? 1 : pcus[op];
    case Role::Pmu:
        return pmus[op];
    case Role::Agcu:
        return agcus[op];
    case Role::Folded:
        break;
    }
    return 1;
}

namespace {

int elemBytesOf(const step::TileType& t, const LoweringOptions& o) {
    if (o.timingElemBytes && t.elem == step::ElemType::F32) return o.timingElemBytes;
    return step::elemBytes(t.elem);
}

// Bytes of one element of a stream at the fabric's element size; 0 if its size is data-dependent and unbound.
double elementBytes(const step::DataType& d, const LoweringOptions& o) {
    using K = step::DataType::Kind;
    switch (d.kind) {
    case K::Tile:
        return static_cast<double>((d.tile.rows * d.tile.cols).eval(o.bindings).value_or(0) *
                                   elemBytesOf(d.tile, o));
    case K::Buffer:
        return static_cast<double>(
            (d.bufferShape->totalElements() * d.tile.rows * d.tile.cols).eval(o.bindings).value_or(0) *
            elemBytesOf(d.tile, o));
    case K::Selector:
        return d.selectorWidth;
    case K::Tuple: {
        double b = 0;
        for (const auto& i : d.items)
            b += elementBytes(i, o);
        return b;
    }
    }
    return 0;
}

// Elements a stream carries over the whole run.
double streamElements(const step::Graph& g, step::StreamRef s, const LoweringOptions& o) {
    return static_cast<double>(g.type(s).shape.totalElements().eval(o.bindings).value_or(1));
}

// Bytes a stream moves over the whole run, at the fabric's element size.
double streamBytes(const step::Graph& g, step::StreamRef s, const LoweringOptions& o) {
    return streamElements(g, s, o) * elementBytes(g.type(s).dtype, o);
}

} // namespace

VirtualUnits lower(const step::Graph& g, const HwConfig& cfg, const LoweringOptions& o) {
    const ChipLayout L(cfg.chip);
    const int n = g.numOps();
    const std::int64_t peak = cfg.pcu.peakFlopsPerCycle();
    const double capacity = static_cast<double>(cfg.pmu.capacity_bytes);
    LoweringOptions rates = o;
    for (const auto& [name, size] : o.rateBindings)
        rates.bindings[name] = size;
    VirtualUnits v;
    for (int i = 0; i < n; ++i) {
        v.role.push_back(roleOf(g.op(i).kind()));
        v.origin.push_back(origin(g, i));
        v.outputBytes.emplace_back();
        v.outputElements.emplace_back();
        for (int k = 0; k < static_cast<int>(g.op(i).outputs().size()); ++k) {
            v.outputBytes.back().push_back(streamBytes(g, {i, k}, rates));
            v.outputElements.back().push_back(streamElements(g, {i, k}, rates));
        }
    }
    v.pcus.assign(n, 0);
    v.sharesWith.assign(n, -1);
    v.pmus.assign(n, 0);
    v.stagePmus.resize(n);
    // The rate model's run time: off-chip bytes at the memory's peak, each compute group's FLOPs at its peak
    // and each of its streams through its units' ports (a flit per unit and cycle).
    double offChip = 0, runCycles = 1;
    std::vector<double> oneUnitCycles(n, 0); // each compute operator's run on one PCU, for `shrink`'s pairs
    std::vector<double> ownCycles(n, 0), ownOffChip(n, 0); // each operator's own bound and off-chip bytes
    for (int i = 0; i < n; ++i) {
        const auto& op = g.op(i);
        ownOffChip[i] = static_cast<double>(op.offChipBytes().eval(rates.bindings).value_or(0));
        offChip += ownOffChip[i];
        if (v.role[i] == Role::Pcu) {
            v.pcus[i] = static_cast<int>(std::max<std::int64_t>(1, (op.computeBw() + peak - 1) / peak));
            const double flops = static_cast<double>(op.flops().eval(rates.bindings).value_or(0));
            double streamed = 0;
            for (const auto& in : op.inputs())
                streamed = std::max(streamed, v.outputBytes[in.op][in.out]);
            for (double b : v.outputBytes[i])
                streamed = std::max(streamed, b);
            oneUnitCycles[i] = std::max(flops / double(peak), streamed / cfg.rdn.flit_bytes);
            ownCycles[i] = std::max(flops / (double(v.pcus[i]) * double(peak)),
                                    streamed / (double(v.pcus[i]) * cfg.rdn.flit_bytes));
            runCycles = std::max(runCycles, ownCycles[i]);
        }
    }
    const double hbmPeak = tierPeakBytesPerCycle(cfg, Tier::Hbm);
    v.runCycles = std::max(runCycles, offChip / hbmPeak);
    // Phases: the same bound over each phase's operators alone.
    v.opCycles.assign(n, v.runCycles);
    v.phase.assign(n, -1);
    v.phases = static_cast<int>(o.phases.size());
    for (int p = 0; p < v.phases; ++p) {
        const std::string& prefix = o.phases[p];
        std::vector<int> members;
        double bound = 1, bytes = 0;
        for (int i = 0; i < n; ++i)
            if (g.op(i).name().compare(0, prefix.size(), prefix) == 0) {
                members.push_back(i);
                bound = std::max(bound, ownCycles[i]);
                bytes += ownOffChip[i];
            }
        bound = std::max(bound, bytes / hbmPeak);
        for (int i : members) {
            v.opCycles[i] = bound;
            v.phase[i] = p;
        }
    }
    const double pmuBw = cfg.pmu.bandwidth_bytes_per_cycle;
    const double flit = cfg.rdn.flit_bytes;
    // PMUs for `bytes` of SRAM moving `rate` bytes per cycle through one port direction, its data arriving on
    // `lanes` links.
    auto pmusFor = [&](double bytes, double rate, int lanes) {
        rate = std::min(rate, lanes * flit);
        return static_cast<int>(
            std::max({double(lanes), std::ceil(bytes / capacity), std::ceil(rate / pmuBw)}));
    };
    for (int i = 0; i < n; ++i) {
        const auto& op = g.op(i);
        if (v.role[i] == Role::Pmu && op.kind() != "Streamify") {
            // Bufferize holds its buffer twice (double-buffered); RepeatStatic and Expand one element.
            double bytes = 0, rate = 0;
            if (!op.outputs().empty()) {
                const double element = elementBytes(g.type({i, 0}).dtype, o);
                bytes = op.kind() == "Bufferize" ? 2 * element : element;
                rate = v.rate(i, 0);
            }
            v.pmus[i] = pmusFor(bytes, rate, 1);
        }
    }

    // Stage buffers: by capacity (the stream's depth in tiles), bandwidth and lanes (one each until lanes are
    // known).
    v.lanes.resize(n);
    for (int i = 0; i < n; ++i)
        v.lanes[i].assign(g.op(i).outputs().size(), 1);
    auto stageOf = [&](int i, std::size_t p) {
        const auto in = g.op(i).inputs()[p];
        auto it = o.depthByProducer.find(g.op(in.op).name());
        const std::int64_t depth = it != o.depthByProducer.end() ? it->second : o.channelDepth;
        const double element = elementBytes(g.type(in).dtype, o);
        return pmusFor(double(std::max<std::int64_t>(depth, 1)) * element, v.rate(in.op, in.out),
                       v.lanes[in.op][in.out]);
    };
    auto sizeStages = [&] {
        for (int i = 0; i < n; ++i) {
            const auto& op = g.op(i);
            if (v.role[i] == Role::Folded || v.role[i] == Role::Pmu) continue;
            v.stagePmus[i].assign(op.inputs().size(), 0);
            for (std::size_t p = 0; p < op.inputs().size(); ++p)
                if (writesMemory(g.op(v.origin[op.inputs()[p].op]))) v.stagePmus[i][p] = stageOf(i, p);
        }
    };

    // Fit check.
    auto consumers = [&](UnitKind k) {
        std::vector<std::pair<int, int>> users; // (units, operator)
        for (int i = 0; i < n; ++i) {
            int u = k == UnitKind::Pcu ? v.pcus[i] : v.pmus[i];
            if (k == UnitKind::Pmu)
                for (int s : v.stagePmus[i])
                    u += s;
            if (u) users.emplace_back(u, i);
        }
        std::stable_sort(users.begin(), users.end(),
                         [](const auto& a, const auto& b) { return a.first > b.first; });
        return users;
    };
    auto overflow = [&](UnitKind k, const std::string& hint) {
        const auto users = consumers(k);
        std::string top;
        for (std::size_t i = 0; i < std::min<std::size_t>(3, users.size()); ++i)
            top += fmt::format("{}{} {}", i ? ", " : "", g.op(users[i].second).where(), users[i].first);
        const bool pcu = k == UnitKind::Pcu;
        throw BadInput(fmt::format(
            "pnr: {} overflow: the graph needs {} {}s{}, the {} x {} grid of '{}' has {} (largest: {}); {}",
            pcu ? "PCU" : "PMU", v.total(k), pcu ? "PCU" : "PMU",
            pcu ? fmt::format(" ({} FLOP/cycle)", std::int64_t(v.total(k)) * peak) : "", L.rows(), L.cols(),
            cfg.name, L.numUnits(k), top, hint));
    };
    // Stage buffers on one lane each must fit as they are.
    sizeStages();
    if (v.total(UnitKind::Pmu) > L.numUnits(UnitKind::Pmu))
        overflow(UnitKind::Pmu,
                 "PMU capacity cannot shrink: use smaller tiles, fewer regions or a larger chip");
    const int have = L.numUnits(UnitKind::Pcu);
    if (v.total(UnitKind::Pcu) > have) {
        if (cfg.pnr.on_overflow != OnOverflow::Shrink)
            overflow(UnitKind::Pcu, "lower compute_bw, time-multiplex, or --set pnr.on_overflow=shrink");
        // Take a PCU from the largest group until the graph fits: its throughput drops the least.
        const std::vector<int> before = v.pcus;
        int total = v.total(UnitKind::Pcu);
        while (total > have) {
            int largest = -1;
            for (int i = 0; i < n; ++i)
                if (v.pcus[i] > 1 && (largest < 0 || v.pcus[i] > v.pcus[largest])) largest = i;
            if (largest < 0) break;
            --v.pcus[largest];
            --total;
        }
        // Every compute operator is down to one PCU: operators join a producer's PCU, one operator per host,
        // the pair with the least work together first.
        std::vector<bool> hosts(n, false);
        auto alone = [&](int i) {
            return v.role[i] == Role::Pcu && v.pcus[i] == 1 && v.sharesWith[i] < 0 && !hosts[i];
        };
        while (total > have) {
            int sharer = -1, host = -1;
            double least = 0;
            for (int i = 0; i < n; ++i) {
                if (!alone(i)) continue;
                for (const auto& in : g.op(i).inputs()) {
                    const int h = v.origin[in.op];
                    const double both = oneUnitCycles[i] + oneUnitCycles[h];
                    if (h != i && alone(h) && (sharer < 0 || both < least)) {
                        sharer = i;
                        host = h;
                        least = both;
                    }
                }
            }
            if (sharer < 0)
                overflow(UnitKind::Pcu,
                         "every compute operator is down to one PCU and none can share a producer's");
            v.sharesWith[sharer] = host;
            v.pcus[sharer] = 0;
            hosts[host] = true;
            --total;
        }
        for (int i = 0; i < n; ++i) {
            if (v.sharesWith[i] >= 0)
                v.shrunk.push_back(fmt::format("{}: {} PCU{} -> shares the PCU of {}", g.op(i).name(),
                                               before[i], before[i] == 1 ? "" : "s",
                                               g.op(v.sharesWith[i]).name()));
            else if (v.pcus[i] != before[i])
                v.shrunk.push_back(fmt::format("{}: {} -> {} PCUs", g.op(i).name(), before[i], v.pcus[i]));
        }
    }

    // Lanes: as many as the stream's rate asks for, no more than the units at its ends. Off-chip operators
    // get their AGCUs from their widest stream. A Broadcast's outputs are one multicast per lane, as many
    // lanes as its widest output gets; a narrower consumer takes several lanes on one unit.
    const int chipAgcus = static_cast<int>(L.agcus().size());
    auto onFabric = [&](int c) { return v.role[c] != Role::Folded && g.op(c).kind() != "Streamify"; };
    auto multicastLanes = [&](int i) {
        if (g.op(i).kind() != "Broadcast") return;
        const int lanes = *std::max_element(v.lanes[i].begin(), v.lanes[i].end());
        std::fill(v.lanes[i].begin(), v.lanes[i].end(), lanes);
    };
    for (int i = 0; i < n; ++i) {
        const auto& op = g.op(i);
        const int from = v.origin[i];
        if (v.role[from] == Role::Folded) continue;
        for (int k = 0; k < static_cast<int>(op.outputs().size()); ++k) {
            const auto consumers = g.consumers({i, k});
            if (consumers.size() != 1) continue;
            const int c = consumers.front().first;
            if (!onFabric(c)) continue; // on the same unit
            int want = static_cast<int>(
                std::ceil(cfg.pnr.lane_headroom * v.outputBytes[i][k] / v.opCycles[i] / flit));
            if (v.role[from] != Role::Agcu) want = std::min(want, v.unitsOf(from));
            if (v.role[c] != Role::Agcu) want = std::min(want, v.unitsOf(c));
            v.lanes[i][k] = std::clamp(want, 1, chipAgcus);
        }
        multicastLanes(i);
    }
    // A stage buffer takes a PMU per lane: where that overflows the grid, the widest staged streams give up
    // lanes first.
    sizeStages();
    auto lanesInto = [&](int i, std::size_t p) -> int& {
        const auto in = g.op(i).inputs()[p];
        return v.lanes[in.op][in.out];
    };
    while (v.total(UnitKind::Pmu) > L.numUnits(UnitKind::Pmu)) {
        int wi = -1;
        std::size_t wp = 0;
        for (int i = 0; i < n; ++i)
            for (std::size_t p = 0; p < v.stagePmus[i].size(); ++p)
                if (v.stagePmus[i][p] && lanesInto(i, p) > 1 &&
                    (wi < 0 || lanesInto(i, p) > lanesInto(wi, wp))) {
                    wi = i;
                    wp = p;
                }
        if (wi < 0) break; // cannot happen: one lane each fitted above
        const int producer = g.op(wi).inputs()[wp].op;
        if (g.op(producer).kind() == "Broadcast") { // every output of the multicast
            for (int& lanes : v.lanes[producer])
                lanes = std::max(1, lanes - 1);
            sizeStages();
        } else {
            --lanesInto(wi, wp);
            v.stagePmus[wi][wp] = stageOf(wi, wp);
        }
    }
    v.agcus.assign(n, 0);
    for (int i = 0; i < n; ++i)
        if (v.role[i] == Role::Agcu) v.agcus[i] = 1;
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < static_cast<int>(v.lanes[i].size()); ++k) {
            if (v.role[v.origin[i]] == Role::Agcu)
                v.agcus[v.origin[i]] = std::max(v.agcus[v.origin[i]], v.lanes[i][k]);
            for (auto [c, port] : g.consumers({i, k}))
                if (v.role[c] == Role::Agcu) v.agcus[c] = std::max(v.agcus[c], v.lanes[i][k]);
        }
    return v;
}

} // namespace steprdu::hw::pnr
