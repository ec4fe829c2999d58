#include "hw/fabric/RdnMesh.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <tuple>

#include <fmt/format.h>

#include "hw/arch/ChipLayout.h"
#include "hw/arch/MeshPath.h"
#include "hw/fabric/RdnSwitch.h"
#include "hw/sim/EdgePhase.h"
#include "hw/sim/SimulationFailure.h"

namespace steprdu::hw {

namespace {
const int kDr[] = {-1, 0, 1, 0};
const int kDc[] = {0, 1, 0, -1};
} // namespace

MeshOptions meshOptions(const HwConfig& cfg) {
    MeshOptions o;
    o.rows = cfg.chip.gridRows();
    o.cols = cfg.chip.gridCols();
    o.dieCols = cfg.chip.dies > 1 ? cfg.chip.die_tile_cols * cfg.chip.cols : 0;
    o.flitBytes = cfg.rdn.flit_bytes;
    o.switchLatency = cfg.rdn.switch_latency_cycles;
    o.linkLatency = cfg.rdn.link_latency_cycles;
    o.creditLatency = cfg.rdn.credit_latency_cycles;
    o.bufferFlits = cfg.rdn.vc_buffer_flits;
    o.d2dLatency = cfg.chip.d2d_latency_cycles;
    o.controlHop = cfg.rdn.control_hop_cycles;
    o.flitLevel = cfg.rdn.flit_level;
    o.packetFlits = cfg.rdn.packet_flits;
    o.columnFirst = cfg.rdn.routing == RoutePolicy::Yx;
    return o;
}

RdnMesh::RdnMesh(sc_core::sc_module_name name, const MeshOptions& o)
    : sc_core::sc_module(name), o_(o), calendar_(EdgePhase::get().event()), commit_(*this) {
    EdgePhase::get().add([this] { return calendar_.due(); }, [this] { arbitrateDue(); },
                         [this] { return calendar_.next(); });
    for (int k = 0; k < o_.rows * o_.cols; ++k)
        switches_.push_back(
            std::make_unique<RdnSwitch>(ChipLayout::switchName(k / o_.cols, k % o_.cols).c_str(), *this));
    meshLinks_.assign(switches_.size() * kPorts, -1);
    for (int r = 0; r < o_.rows; ++r)
        for (int c = 0; c < o_.cols; ++c)
            for (int d = 0; d < kPorts; ++d) {
                int r2 = r + kDr[d], c2 = c + kDc[d];
                if (r2 < 0 || r2 >= o_.rows || c2 < 0 || c2 >= o_.cols) continue;
                Link l;
                l.name = ChipLayout::switchName(r, c) + "." + directionName(d);
                l.arbiter = switchAt(r, c);
                l.toSwitch = switchAt(r2, c2);
                l.toPort = (d + 2) % kPorts; // arrives from the opposite side
                l.betweenSwitches = true;
                bool crossesDies = o_.dieCols > 0 && c / o_.dieCols != c2 / o_.dieCols;
                l.latency = o_.linkLatency + (crossesDies ? o_.d2dLatency : 0);
                // A die-to-die interface buffers a round trip's flits, so that the crossing adds latency and
                // keeps the link's bandwidth.
                l.buffer = crossesDies
                               ? std::max(o_.bufferFlits, l.latency + o_.switchLatency + o_.creditLatency + 1)
                               : o_.bufferFlits;
                meshLinks_[switchAt(r, c) * kPorts + d] = static_cast<int>(links_.size());
                addLink(std::move(l));
            }
}

RdnMesh::~RdnMesh() = default;

// Every link due now, each once, in the order its wake was scheduled; a wake for now scheduled meanwhile is
// served in the next delta cycle. The mesh arbitrates a cycle in its edge phase, once every other process of
// that cycle has run (as a switch samples its inputs at the clock edge), so what competes for a link does
// not depend on the delta cycle in which a unit sent it; the order is the mesh's own (injections reach it
// sorted), so no kernel order of processes enters a grant.
void RdnMesh::arbitrateDue() {
    if (dueMark_.size() < links_.size()) dueMark_.resize(links_.size(), 0);
    ++drains_;
    due_.clear();
    while (calendar_.due()) {
        const int l = calendar_.pop();
        if (dueMark_[l] == drains_) continue;
        dueMark_[l] = drains_;
        due_.push_back(l);
    }
    try {
        for (int l : due_)
            switches_[links_[l].arbiter]->arbitrate(l);
    } catch (...) { // a delivery's consumer found bad input (e.g. a stage buffer that does not fit)
        failSimulation(std::current_exception());
    }
}

double RdnMesh::rateFor(int latency, int buffer, bool ejection) const {
    // The flit-level mode tracks every slot one flit at a time, so the rate follows from the credits alone.
    if (buffer <= 0 || ejection || o_.flitLevel) return 1.0;
    // A slot is reused a credit round trip after its flit crossed: the flit's link and switch, the credit's
    // return, and the cycle the sender takes to see it.
    double rtt = latency + o_.switchLatency + o_.creditLatency + 1;
    return std::max(1.0, rtt / buffer);
}

void RdnMesh::addLink(Link l) {
    l.inv = rateFor(l.latency, l.buffer, l.toSwitch < 0);
    if (l.buffer > 0) l.slot.assign(l.buffer, 0);
    links_.push_back(std::move(l));
}

int RdnMesh::attach(int row, int col, const std::string& name) {
    int sw = switchAt(row, col);
    EndpointInfo e;
    e.name = name;
    e.sw = sw;
    e.row = row;
    e.col = col;
    e.port = switches_[sw]->addInputPort();
    int id = static_cast<int>(endpoints_.size());
    Link in;
    in.name = name + ".inject";
    in.arbiter = sw;
    in.toSwitch = sw;
    in.toPort = e.port;
    in.endpoint = id;
    in.injection = true;
    in.latency = 0; // the unit's port is the switch's input buffer
    in.buffer = o_.bufferFlits;
    e.injection = static_cast<int>(links_.size());
    addLink(std::move(in));
    Link out;
    out.name = name + ".eject";
    out.arbiter = sw;
    out.endpoint = id;
    out.latency = o_.linkLatency;
    e.ejection = static_cast<int>(links_.size());
    addLink(std::move(out));
    endpoints_.push_back(e);
    sourceQueue_.emplace_back();
    return id;
}

// Dimension order: along the row (X) first, then along the column (Y); or the other way round.
void RdnMesh::route(int fromSwitch, int toSwitch, bool columnFirst, std::vector<int>& links) const {
    for (const MeshHop& h : meshPath(fromSwitch / o_.cols, fromSwitch % o_.cols, toSwitch / o_.cols,
                                     toSwitch % o_.cols, columnFirst))
        links.push_back(meshLinks_[switchAt(h.row, h.col) * kPorts + h.dir]);
}

int RdnMesh::addFlow(int src, const std::vector<int>& dsts, const std::vector<bool>& columnFirst,
                     int packetFlits) {
    Flow f;
    f.src = src;
    f.packetFlits = packetFlits >= 0 ? packetFlits : o_.packetFlits;
    f.dsts = dsts;
    f.nodes.push_back({endpoints_.at(src).injection, {}, {}, {}});
    for (std::size_t d = 0; d < dsts.size(); ++d) {
        std::vector<int> path;
        route(endpoints_[src].sw, endpoints_.at(dsts[d]).sw,
              columnFirst.empty() ? o_.columnFirst : columnFirst[d], path);
        path.push_back(endpoints_[dsts[d]].ejection);
        int node = 0;
        for (int link : path) {
            int next = -1;
            for (int c : f.nodes[node].children)
                if (f.nodes[c].link == link) next = c;
            if (next < 0) {
                next = static_cast<int>(f.nodes.size());
                f.nodes.push_back({link, {}, {}, {}});
                f.nodes[node].children.push_back(next);
                f.nodes[node].childLinks.push_back(link);
            }
            node = next;
        }
        f.nodes[node].dests.push_back(static_cast<int>(d));
    }
    int id = static_cast<int>(flows_.size());
    flows_.push_back(std::move(f));
    return id;
}

int RdnMesh::newVisit(Visit v) {
    if (freeVisits_.empty()) {
        visits_.push_back(std::move(v));
        return static_cast<int>(visits_.size()) - 1;
    }
    int id = freeVisits_.back();
    freeVisits_.pop_back();
    visits_[id] = std::move(v);
    return id;
}

void RdnMesh::freeVisit(int v) {
    visits_[v].packet = -1;
    freeVisits_.push_back(v);
}

// Calls fn(hold, m, S) for the hold given (m = 1) and each one before it on the packet's path (m = 2, ...)
// while the buffers from there to the head, S, hold fewer flits than the packet: those whose tail the head's
// next grant can still delay.
template <class Fn> void RdnMesh::forHoldsInReach(int hold, int flits, Fn&& fn) {
    int reach = links_[holds_[hold].link].buffer;
    for (int h = hold, m = 1; h >= 0 && reach < flits; ++m) {
        const int parent = holds_[h].parent; // fn may free h
        const int next = reach + holds_[h].parentBuffer;
        fn(h, m, reach);
        h = parent;
        reach = next;
    }
}

int RdnMesh::newHold(int link, int parent, int flits, std::int64_t k0, Cycle tail) {
    Hold hd;
    hd.link = link;
    hd.parent = parent;
    hd.parentBuffer = parent >= 0 ? links_[holds_[parent].link].buffer : 0;
    hd.k0 = k0;
    hd.arrivalTail = tail;
    int id;
    if (freeHolds_.empty()) {
        id = static_cast<int>(holds_.size());
        holds_.push_back(hd);
    } else {
        id = freeHolds_.back();
        freeHolds_.pop_back();
        holds_[id] = hd;
    }
    forHoldsInReach(id, flits, [&](int h, int, int) { ++holds_[h].open; });
    return id;
}

void RdnMesh::headGranted(int hold, int flits, Cycle grant, double inv) {
    const Cycle loop = o_.creditLatency + 1;
    forHoldsInReach(hold, flits, [&](int h, int m, int reach) {
        Hold& hd = holds_[h];
        Link& U = links_[hd.link];
        // Flit F - 1 - reach crosses the head's new link (F - 1 - reach) flit times after the grant; the
        // tail follows across this link m credit loops later.
        const Cycle crossed =
            grant + static_cast<Cycle>(std::floor((flits - 1 - reach) * inv + U.inv + 1e-9));
        hd.release = std::max(hd.release, crossed + m * loop);
        if (m == 1) {
            hd.releaseNext = crossed + loop;
            hd.nextGrant = grant;
            hd.nextInv = inv;
        }
        if (--hd.open > 0) return;
        // Every grant that can delay the tail is known: the link frees once the tail has crossed, and the
        // slots of the last flits as they leave the next buffer, as late as a stall further on made them.
        const Cycle free = std::max(hd.arrivalTail, hd.release);
        const Cycle stall = free - std::max(hd.arrivalTail, hd.releaseNext);
        const int B = U.buffer;
        for (int j = flits - B; j < flits; ++j)
            U.slot[(hd.k0 + j) % B] =
                hd.nextGrant + static_cast<Cycle>(std::floor(j * hd.nextInv + 1e-9)) + loop + stall;
        U.busyUntil = free;
        U.held = false;
        if (U.requests > 0) wake(hd.link, now());
        freeHolds_.push_back(h);
    });
}

void RdnMesh::freePacket(int p) {
    packets_[p].flow = -1;
    freePackets_.push_back(p);
}

namespace {
int flitsOf(std::int64_t bytes, int flitBytes) {
    return static_cast<int>(std::max<std::int64_t>(1, (bytes + flitBytes - 1) / flitBytes));
}
} // namespace

int RdnMesh::flitsPerPart(int flow, int flits) const {
    const int cut = flows_.at(flow).packetFlits;
    return o_.flitLevel ? 1 : cut > 0 ? std::min(flits, cut) : flits;
}

int RdnMesh::partsFor(int flow, std::int64_t bytes) const {
    const int flits = flitsOf(bytes, o_.flitBytes), per = flitsPerPart(flow, flits);
    return (flits + per - 1) / per;
}

int RdnMesh::open(int flow, std::int64_t bytes, PacketSink* sink, std::uint64_t tag) {
    const Flow& f = flows_.at(flow);
    const int flits = flitsOf(bytes, o_.flitBytes);
    int msg;
    if (freeMessages_.empty()) {
        msg = static_cast<int>(messages_.size());
        messages_.emplace_back();
    } else {
        msg = freeMessages_.back();
        freeMessages_.pop_back();
    }
    Message& m = messages_[msg];
    std::size_t nd = f.dsts.size();
    m.flow = flow;
    m.bytes = bytes;
    m.flits = flits;
    m.sink = sink;
    m.tag = tag;
    m.partFlits = flitsPerPart(flow, flits);
    m.parts = (flits + m.partFlits - 1) / m.partFlits;
    m.got.assign(nd, 0);
    m.head.assign(nd, kNever);
    m.tail.assign(nd, 0);
    m.open = static_cast<int>(nd);
    m.queued = 0;
    return msg;
}

void RdnMesh::release(int msg, int part, Cycle at, Cycle tailReady) {
    const Message& m = messages_[msg];
    Packet p;
    p.flow = m.flow;
    p.message = msg;
    const std::int64_t first = std::int64_t(part) * m.partFlits; // the part's first flit
    p.flits = static_cast<int>(std::min<std::int64_t>(m.partFlits, m.flits - first));
    p.part = part;
    p.parts = m.parts;
    p.bytes = std::min<std::int64_t>(std::int64_t(p.flits) * o_.flitBytes, m.bytes - first * o_.flitBytes);
    p.live = 1;
    int pid;
    if (freePackets_.empty()) {
        pid = static_cast<int>(packets_.size());
        packets_.push_back(p);
    } else {
        pid = freePackets_.back();
        freePackets_.pop_back();
        packets_[pid] = p;
    }
    Visit v;
    v.packet = pid;
    v.req = at;
    v.tailReady = std::max(tailReady, at);
    v.children = 1;
    v.firstLink = flows_[m.flow].nodes[0].link;
    injections_.push_back({at, m.flow, injectionSeq_++, newVisit(std::move(v))});
    commit_.request();
}

void RdnMesh::commitInjections() {
    std::sort(injections_.begin(), injections_.end(), [](const Injection& a, const Injection& b) {
        return std::tie(a.req, a.flow, a.seq) < std::tie(b.req, b.flow, b.seq);
    });
    for (const Injection& i : injections_)
        switches_[endpoints_[flows_[i.flow].src].sw]->enqueue(-1, i.visit);
    injections_.clear();
}

void RdnMesh::send(int flow, std::int64_t bytes, Cycle at, Cycle tailReady, PacketSink* sink,
                   std::uint64_t tag) {
    const int msg = open(flow, bytes, sink, tag);
    const Message& m = messages_[msg];
    const int parts = m.parts, flits = m.flits, per = m.partFlits;
    // One flit per cycle from the source at most, the flits ready evenly from `at` to `tailReady` (data
    // forwarded as it streams in).
    auto ready = [&](int flit) {
        const Cycle span = std::max<Cycle>(0, tailReady - at);
        return std::max<Cycle>(at + flit, at + (flits > 1 ? span * flit / (flits - 1) : span));
    };
    for (int i = 0; i < parts; ++i) {
        if (parts == 1) {
            release(msg, 0, at, tailReady);
            continue;
        }
        const int last = std::min(flits, (i + 1) * per) - 1;
        release(msg, i, ready(i * per), ready(last));
    }
}

void RdnMesh::deliver(int packet, int dest, Cycle head, Cycle tail) {
    const Packet p = packets_[packet];
    flitsDelivered_ += p.flits;
    Message& m = messages_[p.message];
    // Callbacks may send (and so grow messages_): take what they need first.
    PacketSink* sink = m.sink;
    const std::uint64_t tag = m.tag;
    const int parts = m.parts;
    const bool first = m.got[dest] == 0;
    m.head[dest] = std::min(m.head[dest], head);
    m.tail[dest] = std::max(m.tail[dest], tail);
    const bool complete = ++m.got[dest] == parts;
    const Cycle h = m.head[dest], t = m.tail[dest];
    if (complete && --m.open == 0) freeMessages_.push_back(p.message);
    if (first && parts > 1) sink->headDelivered(tag, dest, head);
    if (sink->wantsParts())
        sink->partDelivered(tag, dest, p.part, parts, p.bytes, head, tail);
    else if (complete)
        sink->delivered(tag, dest, h, t);
}

int RdnMesh::hops(int src, int dst) const {
    const auto &a = endpoints_.at(src), &b = endpoints_.at(dst);
    return std::abs(a.row - b.row) + std::abs(a.col - b.col) + 1;
}

Cycle RdnMesh::controlLatency(int src, int dst) const {
    const auto &a = endpoints_.at(src), &b = endpoints_.at(dst);
    bool crossesDies = o_.dieCols > 0 && a.col / o_.dieCols != b.col / o_.dieCols;
    return static_cast<Cycle>(hops(src, dst)) * o_.controlHop + (crossesDies ? o_.d2dLatency : 0);
}

Cycle RdnMesh::roundTrip(int src, int dst) const {
    const Cycle control = controlLatency(src, dst);
    const Cycle d2d = control - static_cast<Cycle>(hops(src, dst)) * o_.controlHop;
    return static_cast<Cycle>(hops(src, dst)) * (o_.switchLatency + o_.linkLatency) + d2d + control;
}

std::int64_t RdnMesh::linkBytes() const {
    std::int64_t b = 0;
    for (const auto& l : links_)
        if (l.betweenSwitches) b += l.bytes;
    return b;
}

void RdnMesh::reportStats(StatsRegistry& stats, const std::string& prefix, Cycle elapsed) const {
    stats.add(prefix, "link_bytes", static_cast<double>(linkBytes()));
    stats.add(prefix, "packet_hops", static_cast<double>(grants_));
    for (std::size_t s = 0; s < switches_.size(); ++s) {
        std::int64_t bytes = 0, busy = 0;
        double maxUtil = 0;
        for (int d = 0; d < kPorts; ++d) {
            int l = meshLinks_[s * kPorts + d];
            if (l < 0) continue;
            bytes += links_[l].bytes;
            busy += links_[l].busyCycles;
            if (elapsed > 0) maxUtil = std::max(maxUtil, double(links_[l].busyCycles) / elapsed);
        }
        if (bytes == 0) continue;
        std::string path = prefix + "." + switches_[s]->basename();
        stats.add(path, "bytes_out", static_cast<double>(bytes));
        stats.add(path, "link_busy_cycles", static_cast<double>(busy));
        stats.add(path, "max_link_utilization", maxUtil);
    }
}

std::vector<std::string> RdnMesh::blockedLinks() const {
    std::vector<std::string> out;
    for (const auto& l : links_)
        if (l.held) out.push_back(fmt::format("link {} is held by a packet waiting downstream", l.name));
    for (std::size_t s = 0; s < switches_.size(); ++s)
        for (int v : switches_[s]->waitingVisits()) {
            const auto& p = packets_[visits_[v].packet];
            out.push_back(fmt::format("switch {} holds a {}-flit packet of flow {} waiting for a link",
                                      switches_[s]->basename(), p.flits, p.flow));
        }
    return out;
}

} // namespace steprdu::hw
