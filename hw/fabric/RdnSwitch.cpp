#include "hw/fabric/RdnSwitch.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <tuple>

#include "hw/fabric/RdnMesh.h"
#include "util/Timeline.h"

namespace steprdu::hw {

namespace {
Cycle ceilCycles(double x) {
    return static_cast<Cycle>(std::ceil(x - 1e-9));
}
} // namespace

RdnSwitch::RdnSwitch(sc_core::sc_module_name name, RdnMesh& mesh)
    : sc_core::sc_module(name), mesh_(mesh), ports_(RdnMesh::kPorts) {}

int RdnSwitch::addInputPort() {
    ports_.emplace_back();
    return static_cast<int>(ports_.size()) - 1;
}

// The earliest cycle the visit's head may take a link: its own arrival, after the packet ahead of it in the
// same buffer has left.
Cycle RdnSwitch::ready(int visit) const {
    const auto& v = mesh_.visits_[visit];
    return v.inPort < 0 ? v.req : std::max(v.req, ports_[v.inPort].nextFree);
}

bool RdnSwitch::wants(int visit, int link, int* child) const {
    const auto& v = mesh_.visits_[visit];
    if (v.children == 1) {
        *child = 0;
        return v.firstLink == link && !(v.done & 1);
    }
    const auto& links = mesh_.flows_[mesh_.packets_[v.packet].flow].nodes[v.node].childLinks;
    for (std::size_t c = 0; c < links.size(); ++c)
        if (links[c] == link && !(v.done >> c & 1)) {
            *child = static_cast<int>(c);
            return true;
        }
    return false;
}

// A visit became the head of its buffer: it asks for each link of its branches.
void RdnSwitch::requestLinks(int visit) {
    const auto& v = mesh_.visits_[visit];
    const auto& flow = mesh_.flows_[mesh_.packets_[v.packet].flow];
    Cycle at = ready(visit);
    if (v.node < 0) {
        ++mesh_.links_[flow.nodes[0].link].requests;
        mesh_.wake(flow.nodes[0].link, at);
        return;
    }
    for (int l : flow.nodes[v.node].childLinks) {
        ++mesh_.links_[l].requests;
        mesh_.wake(l, at);
    }
}

void RdnSwitch::enqueue(int port, int visit) {
    RdnMesh& m = mesh_;
    if (port < 0) {
        // At its source, in order of the cycle it may leave (each flow's packets in the order sent), not of
        // when its sender knew that cycle: an AGCU sends a tile once it learns when its data return, and a
        // Source's token ready sooner must not wait behind it. A message's packets stay together (wormhole).
        const auto& packet = [&](int v) -> const RdnMesh::Packet& { return m.packets_[m.visits_[v].packet]; };
        const RdnMesh::Packet& p = packet(visit);
        auto& q = m.sourceQueue_[m.flows_[p.flow].src];
        auto pos = q.end();
        if (m.messages_[p.message].queued > 0) {
            while (packet(*std::prev(pos)).message != p.message)
                --pos;
        } else {
            // Ahead of each message that may leave later and has not started, of another flow.
            while (pos != q.begin()) {
                auto first = std::prev(pos);
                while (first != q.begin() && packet(*std::prev(first)).message == packet(*first).message)
                    --first;
                const RdnMesh::Packet& f = packet(*first);
                if (f.part > 0 || f.flow == p.flow ||
                    std::tie(m.visits_[*first].req, f.flow) <= std::tie(m.visits_[visit].req, p.flow))
                    break;
                pos = first;
            }
        }
        ++m.messages_[p.message].queued;
        const bool head = pos == q.begin();
        q.insert(pos, visit);
        if (q.size() == 1)
            requestLinks(visit);
        else if (head) // the queue's request stands; its new head may leave sooner
            m.wake(m.flows_[p.flow].nodes[0].link, m.visits_[visit].req);
        return;
    }
    Port& in = ports_[port];
    m.visits_[visit].next = -1;
    if (in.head < 0) {
        in.head = in.tail = visit;
        requestLinks(visit);
    } else {
        m.visits_[in.tail].next = visit;
        in.tail = visit;
    }
}

void RdnSwitch::arbitrate(int li) {
    RdnMesh::Link& L = mesh_.links_[li];
    if (L.held || L.requests == 0) return; // a holder's next grant, or a new request, wakes it again
    const Cycle t = now();
    if (L.busyUntil > t) return mesh_.wake(li, L.busyUntil);
    // Candidates: the head of each input buffer (or of the source's queue) that wants this link.
    std::vector<int>& heads = heads_;
    heads.clear();
    if (L.injection) {
        const auto& q = mesh_.sourceQueue_[L.endpoint];
        heads.push_back(q.empty() ? -1 : q.front());
    } else {
        for (const auto& p : ports_)
            heads.push_back(p.head);
    }
    int n = static_cast<int>(heads.size());
    Cycle soonest = kNever;
    for (int k = 0; k < n; ++k) {
        // Wormhole in the flit-level mode: a link stays with one packet's flits from its head to its tail.
        int i = L.lockedTo >= 0 ? L.lockedTo : (L.rr + k) % n;
        if (L.lockedTo >= 0 && k > 0) break;
        int child = 0;
        if (heads[i] < 0 || !wants(heads[i], li, &child)) continue;
        Cycle r = ready(heads[i]);
        if (r > t) {
            soonest = std::min(soonest, r);
            continue;
        }
        // Credits: the slots of the packet's first flits must be back when those flits cross.
        const auto& p = mesh_.packets_[mesh_.visits_[heads[i]].packet];
        Cycle start = t;
        if (L.buffer > 0) {
            int m = std::min(p.flits, L.buffer);
            for (int j = 0; j < m; ++j) {
                Cycle s = L.slot[(L.flits + j) % L.buffer];
                if (s == kNever) return; // a slot is still occupied; its packet's next grant wakes the link
                start = std::max(start, s - static_cast<Cycle>(std::floor(j * L.inv)));
            }
        }
        if (start > t) return mesh_.wake(li, start);
        L.rr = (i + 1) % n;
        const auto& granted = mesh_.packets_[mesh_.visits_[heads[i]].packet];
        if (granted.parts > 1) L.lockedTo = granted.part + 1 < granted.parts ? i : -1;
        grant(li, heads[i], child);
        return;
    }
    if (soonest != kNever) mesh_.wake(li, soonest);
}

void RdnSwitch::grant(int li, int vi, int child) {
    RdnMesh& m = mesh_;
    const Cycle g = now();
    int packet = m.visits_[vi].packet;
    const int flits = m.packets_[packet].flits;
    const std::int64_t bytes = m.packets_[packet].bytes;
    const int flow = m.packets_[packet].flow;
    const int node = m.visits_[vi].node < 0 ? 0 : m.flows_[flow].nodes[m.visits_[vi].node].children[child];
    RdnMesh::Link& L = m.links_[li];
    // A credit-limited link carries a fraction of a flit per cycle; a packet occupies it for whole cycles.
    const Cycle occupancy = ceilCycles(flits * L.inv);
    const Cycle tail = std::max(g + occupancy, m.visits_[vi].tailReady);
    const std::int64_t k0 = L.flits;
    L.flits += flits;
    if (L.buffer > 0) {
        for (int j = 0; j < std::min(flits, L.buffer); ++j)
            L.slot[(k0 + j) % L.buffer] = kNever;
        L.held = flits > L.buffer;
    }
    if (!L.held) L.busyUntil = tail;
    L.busyCycles += occupancy;
    L.bytes += bytes;
    if (auto* tl = Timeline::active()) tl->rate("links", L.name, g, tail, static_cast<double>(bytes));
    ++L.packets;
    --L.requests;
    ++m.grants_;
    {
        auto& v = m.visits_[vi];
        v.done |= std::uint64_t(1) << child;
        ++v.granted;
        v.maxGrant = std::max(v.maxGrant, g);
        v.maxInv = std::max(v.maxInv, L.inv);
        v.maxTail = std::max(v.maxTail, tail);
    }
    const int latency = L.latency;
    const int toSwitch = L.toSwitch, toPort = L.toPort;
    if (toSwitch < 0) {
        for (int d : m.flows_[flow].nodes[node].dests)
            m.deliver(packet, d, g + latency, tail + latency);
    } else {
        RdnMesh::Visit nv;
        nv.packet = packet;
        nv.node = node;
        nv.inPort = toPort;
        nv.req = g + latency + m.o_.switchLatency;
        nv.tailReady = tail + latency + m.o_.switchLatency;
        nv.k0 = k0;
        nv.arrivalGrant = g;
        nv.arrivalTail = tail;
        nv.children = static_cast<int>(m.flows_[flow].nodes[node].children.size());
        nv.firstLink = nv.children ? m.flows_[flow].nodes[node].childLinks.front() : -1;
        if (m.links_[li].held) nv.hold = m.newHold(li, m.visits_[vi].hold, flits, k0, tail);
        ++m.packets_[packet].live;
        int id = m.newVisit(std::move(nv));
        m.switches_[toSwitch]->enqueue(toPort, id);
    }
    const auto& v = m.visits_[vi];
    if (v.granted == v.children) finish(vi);
    if (!m.links_[li].held && m.links_[li].requests > 0) m.wake(li, m.links_[li].busyUntil);
}

// Every branch of the visit has its link: its flits leave this buffer, so the arrival link's slots free
// (and, for a packet longer than the buffer, the arrival link itself), and the next packet in the buffer
// moves up.
void RdnSwitch::finish(int vi) {
    RdnMesh& m = mesh_;
    const RdnMesh::Visit v = m.visits_[vi];
    const auto& p = m.packets_[v.packet];
    if (v.node >= 0) {
        int ui = m.flows_[p.flow].nodes[v.node].link;
        RdnMesh::Link& U = m.links_[ui];
        if (U.buffer > 0) {
            const int B = U.buffer, F = p.flits;
            // Flit j leaves in the cycle it starts to cross the next link.
            auto leaves = [&](int j) {
                return v.maxGrant + static_cast<Cycle>(std::floor(j * v.maxInv + 1e-9));
            };
            if (v.hold >= 0) {
                // A packet longer than the buffer: the link stays held while the head's grants further on
                // can still hold up its tail (RdnMesh::Hold).
                m.headGranted(v.hold, F, v.maxGrant, v.maxInv);
            } else {
                for (int j = std::max(0, F - B); j < F; ++j)
                    U.slot[(v.k0 + j) % B] = leaves(j) + m.o_.creditLatency + 1;
                if (U.requests > 0) m.wake(ui, now());
            }
        }
        Port& port = ports_[v.inPort];
        port.head = v.next;
        if (port.head < 0) port.tail = -1;
        port.nextFree = v.maxTail;
        if (port.head >= 0) requestLinks(port.head);
    } else {
        auto& q = m.sourceQueue_[m.flows_[p.flow].src];
        q.pop_front();
        --m.messages_[p.message].queued;
        if (!q.empty()) requestLinks(q.front());
    }
    if (--m.packets_[v.packet].live == 0) m.freePacket(v.packet);
    m.freeVisit(vi);
}

std::vector<int> RdnSwitch::waitingVisits() const {
    std::vector<int> out;
    for (const auto& p : ports_)
        if (p.head >= 0) out.push_back(p.head);
    return out;
}

} // namespace steprdu::hw
