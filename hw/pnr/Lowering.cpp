#include "hw/pnr/Lowering.h"

#include <algorithm>
#include <cmath>
#include <numeric>

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

// The drain of each group of operators that run together (a phase, or the operators in none) whose bound is
// the off-chip bandwidth. The memory serves the requests in flight, so by Little's law an operator's share of
// its peak follows the bytes it keeps in flight: its tiles (agcu.tiles_in_flight), or its AGCUs' windows of
// bursts where those are smaller. Each AGCU moves at most a link's worth each way, and its window, reads and
// writes together, over the loaded round trip (the windows in flight over the memory's peak, at least the
// idle round trip). A phase ends when the operator with least left finishes (water-filling). Phases shorter
// than 2% of their group's are merged into a neighbour, keeping the larger rates; a group keeps 8 at most.
std::vector<VirtualUnits::DrainPhase> drainPhases(const VirtualUnits& v, const std::vector<double>& offChip,
                                                  const HwConfig& cfg, double memoryPeak, int chipAgcus) {
    const int n = static_cast<int>(v.role.size());
    const double window = double(cfg.agcu.max_outstanding) * cfg.agcu.burst_bytes;
    const double idleRoundTrip = agcuIdleRoundTripCycles(cfg), link = agcuLinkBytesPerCycle(cfg);
    std::vector<double> inFlight(n, 0); // bytes an off-chip operator keeps in flight
    for (int i = 0; i < n; ++i) {
        const double tile = !v.outputElements[i].empty() && v.outputElements[i][0] > 0
                                ? v.outputBytes[i][0] / v.outputElements[i][0]
                                : window;
        inFlight[i] =
            std::max(1.0, std::min(cfg.agcu.tiles_in_flight * tile, std::max(1, v.agcus[i]) * window));
    }
    std::vector<VirtualUnits::DrainPhase> drain;
    for (int group = -1; group < v.phases; ++group) {
        std::vector<int> active;
        double bytes = 0, bound = 0;
        for (int i = 0; i < n; ++i)
            if (v.phase[i] == group && v.role[i] == Role::Agcu && offChip[i] > 0) {
                active.push_back(i);
                bytes += offChip[i];
                bound = v.opCycles[i];
            }
        if (active.empty() || bytes / memoryPeak < 0.999 * bound) continue; // not bound by off-chip bandwidth
        std::vector<VirtualUnits::DrainPhase> phases;
        std::vector<double> left = offChip;
        while (!active.empty()) {
            double flying = 0;
            int agcus = 0;
            for (int i : active) {
                flying += inFlight[i];
                agcus += std::max(1, v.agcus[i]);
            }
            flying = std::min(flying, std::min(agcus, chipAgcus) * window);
            const double windowRate = window / std::max(idleRoundTrip, flying / memoryPeak);
            auto cap = [&](int i) { return std::max(1, v.agcus[i]) * std::min(link, windowRate); };
            // Shares in proportion to bytes in flight, each up to its cap: the tightest caps first.
            std::sort(active.begin(), active.end(),
                      [&](int a, int b) { return cap(a) / inFlight[a] < cap(b) / inFlight[b]; });
            std::vector<double> rate(n, 0);
            double share = memoryPeak, weight = 0, first = 0;
            for (int i : active)
                weight += inFlight[i];
            for (std::size_t k = 0; k < active.size(); ++k) {
                const int i = active[k];
                rate[i] = std::min(cap(i), share * inFlight[i] / weight);
                share -= rate[i];
                weight -= inFlight[i];
                const double t = left[i] / rate[i];
                if (k == 0 || t < first) first = t;
            }
            VirtualUnits::DrainPhase p{first, windowRate, std::vector<double>(n, 0.0)};
            for (int i = 0; i < n; ++i)
                if (v.phase[i] == group || v.phase[i] < 0) p.scale[i] = 1;
            std::vector<int> still;
            for (int i : active) {
                p.scale[i] = rate[i] * v.opCycles[i] / offChip[i];
                left[i] -= rate[i] * first;
                if (left[i] > 1e-9 * offChip[i]) still.push_back(i);
            }
            active = std::move(still);
            phases.push_back(std::move(p));
        }
        double total = 0;
        for (const auto& p : phases)
            total += p.cycles;
        auto merge = [&](std::size_t into, std::size_t from) {
            phases[into].cycles += phases[from].cycles;
            phases[into].windowBytes = std::min(phases[into].windowBytes, phases[from].windowBytes);
            for (int i = 0; i < n; ++i)
                phases[into].scale[i] = std::max(phases[into].scale[i], phases[from].scale[i]);
            phases.erase(phases.begin() + static_cast<std::ptrdiff_t>(from));
        };
        for (;;) {
            std::size_t shortest = 0;
            for (std::size_t k = 1; k < phases.size(); ++k)
                if (phases[k].cycles < phases[shortest].cycles) shortest = k;
            if (phases.size() < 2 || (phases.size() <= 8 && phases[shortest].cycles >= 0.02 * total)) break;
            const std::size_t next = shortest + 1 < phases.size() ? shortest + 1 : shortest - 1;
            const std::size_t prev = shortest > 0 ? shortest - 1 : next;
            const std::size_t with = phases[prev].cycles <= phases[next].cycles ? prev : next;
            merge(std::min(with, shortest), std::max(with, shortest));
        }
        for (auto& p : phases) // an operator folded onto another's unit moves at its pace
            for (int i = 0; i < n; ++i)
                if (v.role[i] == Role::Folded) p.scale[i] = p.scale[v.origin[i]];
        drain.insert(drain.end(), phases.begin(), phases.end());
    }
    return drain;
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
    // and each of its streams through its units' ports (a flit per unit and cycle). A compute group whose
    // widest stream would need more ports than its FLOPs give it PCUs, to keep the pace of the off-chip
    // bandwidth and the other groups' FLOPs, gets the PCUs its ports need (a routing operator on one PCU
    // would otherwise hold its region to a flit per cycle).
    double offChip = 0, flopCycles = 1;
    std::vector<double> oneUnitCycles(n, 0); // each compute operator's run on one PCU, for `shrink`'s pairs
    std::vector<double> ownOffChip(n, 0), flops(n, 0), streamed(n, 0);
    for (int i = 0; i < n; ++i) {
        const auto& op = g.op(i);
        ownOffChip[i] = static_cast<double>(op.offChipBytes().eval(rates.bindings).value_or(0));
        offChip += ownOffChip[i];
        if (v.role[i] == Role::Pcu) {
            v.pcus[i] = static_cast<int>(std::max<std::int64_t>(1, (op.computeBw() + peak - 1) / peak));
            flops[i] = static_cast<double>(op.flops().eval(rates.bindings).value_or(0));
            for (const auto& in : op.inputs())
                streamed[i] = std::max(streamed[i], v.outputBytes[in.op][in.out]);
            for (double b : v.outputBytes[i])
                streamed[i] = std::max(streamed[i], b);
            oneUnitCycles[i] = std::max(flops[i] / double(peak), streamed[i] / cfg.rdn.flit_bytes);
            flopCycles = std::max(flopCycles, flops[i] / (double(v.pcus[i]) * double(peak)));
        }
    }
    const double hbmPeak = tierPeakBytesPerCycle(cfg, Tier::Hbm);
    const double pace = std::max(flopCycles, offChip / hbmPeak);
    // The PCUs for the ports only where the grid has them: a graph that fits without them still fits.
    std::vector<int> forPorts = v.pcus;
    for (int i = 0; i < n; ++i)
        if (v.role[i] == Role::Pcu) {
            const double ports = std::ceil(streamed[i] / (pace * cfg.rdn.flit_bytes) - 1e-9);
            forPorts[i] =
                std::max(v.pcus[i], static_cast<int>(std::min<double>(ports, L.numUnits(UnitKind::Pcu))));
        }
    if (std::accumulate(forPorts.begin(), forPorts.end(), 0) <= L.numUnits(UnitKind::Pcu)) v.pcus = forPorts;
    std::vector<double> ownCycles(n, 0); // each operator's own bound
    double runCycles = 1;
    for (int i = 0; i < n; ++i)
        if (v.role[i] == Role::Pcu) {
            ownCycles[i] = std::max(flops[i] / (double(v.pcus[i]) * double(peak)),
                                    streamed[i] / (double(v.pcus[i]) * cfg.rdn.flit_bytes));
            runCycles = std::max(runCycles, ownCycles[i]);
        }
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
    // One operator larger than the chip fits no placement, shrink or section: say which, and what it holds.
    auto tooLarge = [&](UnitKind k, const std::string& what, const std::string& hint) {
        const auto users = consumers(k);
        if (users.empty() || users.front().first <= L.numUnits(k)) return;
        const bool pcu = k == UnitKind::Pcu;
        throw BadInput(fmt::format(
            "pnr: {} alone needs {} {}s ({}), the {} x {} grid of '{}' has {}: no placement{} holds it; {}",
            g.op(users.front().second).where(), users.front().first, pcu ? "PCU" : "PMU", what, L.rows(),
            L.cols(), cfg.name, L.numUnits(k), pcu ? " or section" : ", shrink or section", hint));
    };
    sizeStages();
    tooLarge(UnitKind::Pmu,
             fmt::format("SRAM for its buffers and input stages, {} bytes per PMU", cfg.pmu.capacity_bytes),
             "use smaller tiles or a shallower buffer");
    if (cfg.pnr.on_overflow != OnOverflow::Shrink)
        tooLarge(UnitKind::Pcu, fmt::format("its compute_bw at {} FLOP/cycle per PCU", peak),
                 "lower its compute_bw or --set pnr.on_overflow=shrink");
    // Stage buffers on one lane each must fit as they are.
    if (v.total(UnitKind::Pmu) > L.numUnits(UnitKind::Pmu))
        overflow(UnitKind::Pmu,
                 "PMU capacity cannot shrink: use smaller tiles, fewer regions or a larger chip");
    const int have = L.numUnits(UnitKind::Pcu);
    if (v.total(UnitKind::Pcu) > have) {
        if (cfg.pnr.on_overflow != OnOverflow::Shrink)
            overflow(UnitKind::Pcu,
                     "lower compute_bw, time-multiplex, or --set pnr.on_overflow=shrink (or sections, on the "
                     "cycle backend)");
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
    v.drain = drainPhases(v, ownOffChip, cfg, hbmPeak, chipAgcus);
    return v;
}

} // namespace steprdu::hw::pnr
