#include "hw/Chip.h"

#include <fmt/format.h>

#include "hw/fabric/LaneBundle.h"
#include "hw/mem/TierFactory.h"
#include "util/Strings.h"

namespace steprdu::hw {

Chip::Chip(sc_core::sc_module_name name, const HwConfig& cfg, const step::Graph& g, const pnr::Placement& p,
           step::TensorStore& store, const pnr::LoweringOptions& s, bool functional)
    : sc_core::sc_module(name), cfg_(cfg), layout_(cfg.chip), map_(g, cfg) {
    layout_.validateUnitNames(cfg_);
    tiers_ = mem::makeTiers(cfg_);
    if (cfg_.rdn.topology == Topology::Mesh) mesh_ = std::make_unique<RdnMesh>("rdn", meshOptions(cfg_));
    for (int r = 0; r < layout_.rows(); ++r)
        for (int c = 0; c < layout_.cols(); ++c) {
            UnitKind k = layout_.siteKind(r, c);
            std::string n = siteName(r, c, k);
            if (k == UnitKind::Pcu)
                sites_.push_back(std::make_unique<Pcu>(n.c_str(), cfg_.forUnit(n)));
            else
                sites_.push_back(std::make_unique<Pmu>(n.c_str(), cfg_.forUnit(n)));
            if (mesh_) sites_.back()->setEndpoint(mesh_->attach(r, c, n));
        }
    for (const auto& a : layout_.agcus()) {
        std::string n = agcuName(a.index);
        agcus_.push_back(std::make_unique<Agcu>(n.c_str(), cfg_.forUnit(n), a.index, tiers_, g, map_));
        if (mesh_) agcus_.back()->setEndpoint(mesh_->attach(a.row, a.col, n));
    }
    used_.assign(sites_.size(), false);
    agcuUsed_.assign(agcus_.size(), false);
    for (const auto& site : p.unitsUsed()) {
        if (site.kind == UnitKind::Agcu) {
            agcuUsed_.at(site.agcu) = true;
            ++agcusUsed_;
            continue;
        }
        used_[site.row * layout_.cols() + site.col] = true;
        ++(site.kind == UnitKind::Pcu ? pcusUsed_ : pmusUsed_);
    }
    // sim.process_order permutes the order of creation only: ops_ stays indexed by operator.
    ops_.resize(g.numOps());
    for (int i : creationOrder(cfg_, g.numOps())) {
        const auto& op = g.op(i);
        const auto& place = p.ops.at(i);
        Unit& host = unitAt(place.host());
        ops_[i] = makeChild<OperatorProcess>(host, identifier(op.name()).c_str(), op, i, host,
                                             static_cast<int>(place.units.size()), store, functional,
                                             s.timingElemBytes);
        if (place.folded) continue;
        ops_[i]->setTimeShared(place.timeShared);
        std::vector<Unit*> group;
        for (std::size_t u = 1; u < place.units.size(); ++u)
            group.push_back(&unitAt(place.units[u]));
        ops_[i]->setGroup(std::move(group));
    }
    buildRoutes(g, p, s);
}

Chip::~Chip() = default;

Unit& Chip::unitAt(const pnr::Site& s) {
    if (s.kind == UnitKind::Agcu) return *agcus_.at(s.agcu);
    return *sites_.at(s.row * layout_.cols() + s.col);
}

int Chip::endpointOf(const pnr::Site& s) {
    return unitAt(s).endpoint();
}

// One route per producer output, or one per Broadcast for all its outputs (a multicast); a channel per
// stream, bound to its producer's output and its consumer's input.
void Chip::buildRoutes(const step::Graph& g, const pnr::Placement& p, const pnr::LoweringOptions& s) {
    const int n = g.numOps();
    std::vector<std::vector<TokenChannel*>> inputs(n);
    for (int i = 0; i < n; ++i)
        inputs[i].resize(g.op(i).inputs().size(), nullptr);
    for (int i = 0; i < n; ++i) {
        const auto& op = g.op(i);
        const int outs = static_cast<int>(op.outputs().size());
        const bool multicast = op.kind() == "Broadcast";
        // A multicast that forks on the fabric has packets of its own length (rdn.multicast_packet_flits): a
        // stage relays its first leg's packets one to one, so both legs are cut alike.
        int forks = 0;
        for (int k = 0; multicast && k < outs; ++k)
            for (auto [c, port] : g.consumers({i, k}))
                forks += p.stage(c, port) || &unitAt(p.ops[i].host()) != &unitAt(p.ops[c].host());
        const int cut =
            forks > 1 && cfg_.rdn.multicast_packet_flits > 0 ? cfg_.rdn.multicast_packet_flits : -1;
        FabricRoute* route = nullptr;
        // Per lane, the fabric destinations of its first leg and whether each goes along the column first,
        // as routed: one for a stream, one per consumer for a Broadcast's multicast.
        std::vector<std::vector<int>> laneDsts;
        std::vector<std::vector<bool>> laneColumnFirst;
        auto routed = [&](int c, int port, int leg, int lane) {
            auto it = p.columnFirst.find({c, port, leg, lane});
            return it != p.columnFirst.end() ? it->second : cfg_.rdn.routing == RoutePolicy::Yx;
        };
        // The first legs, from the producer's unit of each lane (a multicast's lanes leave from the same
        // units for every output).
        auto firstLegs = [&](int out) {
            std::vector<std::unique_ptr<FabricSegment>> legs;
            for (std::size_t l = 0; l < laneDsts.size(); ++l) {
                const int src = unitAt(p.ops[i].units[p.laneSource(i, out, static_cast<int>(l))]).endpoint();
                legs.push_back(makeSegment(mesh_.get(), cfg_.rdn, src, laneDsts[l], laneColumnFirst[l], cut));
            }
            return bundleLanes(std::move(legs), static_cast<int>(laneDsts.front().size()));
        };
        for (int k = 0; k < outs; ++k) {
            if (!route || !multicast) {
                routes_.push_back(std::make_unique<FabricRoute>(cfg_.rdn.local_hop_cycles));
                route = routes_.back().get();
                laneDsts.clear();
                laneColumnFirst.clear();
            }
            auto consumers = g.consumers({i, k});
            if (consumers.size() != 1)
                throw std::logic_error(fmt::format("{} output {} has {} consumers after finalize", op.where(),
                                                   k, consumers.size()));
            auto [c, port] = consumers.front();
            const auto& consumer = g.op(c);
            auto depth = s.depthByProducer.find(op.name());
            std::int64_t capacity = consumer.kind() == "Sink"          ? 0
                                    : depth != s.depthByProducer.end() ? depth->second
                                                                       : s.channelDepth;
            channels_.push_back(std::make_unique<TokenChannel>(
                fmt::format("{}[{}] -> {}[{}]", op.name(), k, consumer.name(), port), capacity));
            TokenChannel* ch = channels_.back().get();
            ch->setRoute(route);
            ops_[i]->addOutput(ch);
            inputs[c][port] = ch;

            Unit& from = unitAt(p.ops[i].host());
            Unit& to = unitAt(p.ops[c].host());
            const pnr::StagePlacement* stage = p.stage(c, port);
            // Lane l runs from the producer's unit for it to the consumer's (Placement::laneSource,
            // laneSink), through stage PMU l.
            const int lanes = p.lanes(i, k);
            FabricRoute::Branch b;
            b.channel = ch;
            b.local = !stage && &from == &to;
            if (!b.local) {
                b.control = mesh_ ? mesh_->controlLatency(from.endpoint(), to.endpoint())
                                  : cfg_.rdn.link_latency_cycles;
                std::vector<std::unique_ptr<FabricSegment>> out;
                std::vector<StageBuffer*> laneBuffers;
                laneDsts.resize(lanes);
                laneColumnFirst.resize(lanes);
                for (int l = 0; l < lanes; ++l) {
                    const int dst = unitAt(p.ops[c].units[p.laneSink(g, c, port, l)]).endpoint();
                    Pmu* lanePmu =
                        stage ? static_cast<Pmu*>(&unitAt(stage->pmus[l % stage->pmus.size()])) : nullptr;
                    const int mid = lanePmu ? lanePmu->endpoint() : dst;
                    if (lanePmu) {
                        out.push_back(
                            makeSegment(mesh_.get(), cfg_.rdn, mid, {dst}, {routed(c, port, 1, l)}, cut));
                        laneBuffers.push_back(lanePmu);
                    }
                    laneDsts[l].push_back(mid);
                    laneColumnFirst[l].push_back(routed(c, port, 0, l));
                }
                if (stage) {
                    auto st = std::make_unique<FabricRoute::Stage>();
                    st->buffer = static_cast<Pmu*>(&unitAt(stage->pmus.front()));
                    st->units = static_cast<int>(stage->pmus.size());
                    st->laneBuffers = std::move(laneBuffers);
                    st->out = bundleLanes(std::move(out));
                    b.stage = std::move(st);
                }
                if (!multicast) route->setFabric(firstLegs(k));
            }
            // The consumer's buffer covers the round trip at the rate lowering planned, with its headroom.
            if (!b.local && mesh_)
                ch->setRoundTrip(mesh_->roundTrip(from.endpoint(), to.endpoint()),
                                 cfg_.pnr.lane_headroom * p.ops[i].elementRates.at(k));
            lanes_.push_back(b.local ? 0 : lanes);
            ch->setLanes(lanes, cfg_.rdn.flit_bytes);
            route->addBranch(std::move(b));
            if (multicast && k + 1 == outs && !laneDsts.empty()) route->setFabric(firstLegs(0));
        }
    }
    for (int i = 0; i < n; ++i)
        for (TokenChannel* ch : inputs[i])
            ops_[i]->addInput(ch);
}

bool Chip::finished() const {
    for (const auto& op : ops_)
        if (!op->finished()) return false;
    return true;
}

Cycle Chip::finishCycle() const {
    Cycle t = 0;
    for (const auto& op : ops_)
        t = std::max(t, op->finishCycle());
    return t;
}

std::string Chip::blockedReport() const {
    std::string r;
    for (const auto& op : ops_)
        if (!op->finished())
            r += fmt::format("\n  {} on {} waits for {}", op->op().where(), op->host().path(),
                             op->waitingFor().empty() ? "its own work or its unit's turn" : op->waitingFor());
    for (const auto& ch : channels_)
        if (ch->available(0) || ch->producerWaiting()) r += "\n  " + ch->state();
    if (mesh_)
        for (const auto& l : mesh_->blockedLinks())
            r += "\n  " + l;
    return r;
}

void Chip::reportStats(StatsRegistry& stats, Cycle elapsed) const {
    for (std::size_t i = 0; i < sites_.size(); ++i)
        if (used_[i]) sites_[i]->reportStats(stats, elapsed);
    for (std::size_t a = 0; a < agcus_.size(); ++a)
        if (agcuUsed_[a]) agcus_[a]->reportStats(stats, elapsed);
    for (const auto& op : ops_)
        op->reportStats(stats);
    for (std::size_t i = 0; i < channels_.size(); ++i) {
        const TokenChannel* ch = channels_[i].get();
        std::string path = std::string(name()) + ".streams." + ch->basename();
        stats.add(path, "lanes", static_cast<double>(lanes_[i]));
        stats.add(path, "tokens", static_cast<double>(ch->tokens()));
        stats.add(path, "data_bytes", static_cast<double>(ch->dataBytes()));
        stats.add(path, "max_occupancy", static_cast<double>(ch->maxOccupancy()));
        stats.add(path, "mean_occupancy", ch->meanOccupancy(elapsed));
    }
    if (mesh_) mesh_->reportStats(stats, mesh_->name(), elapsed);
    for (const auto& t : tiers_)
        if (t) t->reportStats(stats, elapsed);
}

nlohmann::json Chip::summary(Cycle elapsed) const {
    StatsRegistry st;
    for (const auto& op : ops_)
        op->reportStats(st);
    std::int64_t offchip = 0, bursts = 0;
    for (const auto& a : agcus_) {
        StatsRegistry s;
        a->reportStats(s, elapsed);
        offchip += static_cast<std::int64_t>(s.sum("offchip_bytes"));
        bursts += static_cast<std::int64_t>(s.sum("read_bursts") + s.sum("write_bursts"));
    }
    std::int64_t link = 0;
    if (mesh_) {
        link = mesh_->linkBytes();
    } else { // the ideal network: every stream's bytes cross one dedicated link
        for (std::size_t i = 0; i < channels_.size(); ++i)
            if (lanes_[i] > 0) link += channels_[i]->dataBytes();
    }
    nlohmann::json memory = nlohmann::json::object();
    for (int k = 0; k < kTiers; ++k)
        if (tiers_[k]) {
            StatsRegistry s;
            tiers_[k]->reportStats(s, elapsed);
            memory[nameOf(static_cast<Tier>(k))] = {
                {"bytes_read", s.sum("bytes_read", tiers_[k]->path())},
                {"bytes_written", s.sum("bytes_written", tiers_[k]->path())},
                {"peak_bytes_per_cycle", tiers_[k]->peakBytesPerCycle()}};
        }
    return {{"units_used", {{"pcu", pcusUsed_}, {"pmu", pmusUsed_}, {"agcu", agcusUsed_}}},
            {"memory", memory},
            {"onchip_link_bytes", link},
            {"simulated_off_chip_bytes", offchip},
            {"offchip_burst_bytes", bursts * cfg_.agcu.burst_bytes},
            {"stall_cycles", OperatorProcess::stallCycles(st)},
            {"busy_cycles", st.sum("busy_cycles")}};
}

std::int64_t Chip::tokensMoved() const {
    std::int64_t n = 0;
    for (const auto& ch : channels_)
        n += ch->tokens();
    return n;
}

std::int64_t Chip::events() const {
    std::int64_t e = tokensMoved();
    if (mesh_) e += mesh_->packetHops();
    for (const auto& t : tiers_)
        if (t) e += t->events();
    return e;
}

} // namespace steprdu::hw
