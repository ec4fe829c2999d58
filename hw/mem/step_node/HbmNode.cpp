#include "hw/mem/step_node/HbmNode.h"

#include <algorithm>

namespace steprdu::hw::mem {

HbmNode::HbmNode(const HbmParams& p)
    : p_(p), channelFree_(p.channels, 0), channelStarted_(p.channels, false) {}

void HbmNode::submit(int client, bool write, std::int64_t issueTime, std::int64_t requests, int par,
                     Completion done) {
    int id = 2 * client + (write ? 1 : 0);
    if (id >= static_cast<int>(clients_.size())) clients_.resize(id + 1);
    int tile;
    if (!freeTiles_.empty()) {
        tile = freeTiles_.back();
        freeTiles_.pop_back();
    } else {
        tile = static_cast<int>(tiles_.size());
        tiles_.emplace_back();
    }
    tiles_[tile] = Tile{requests, 0, std::move(done)};
    ++stats_.tiles;
    auto& q = clients_[id];
    bool wasIdle = q.empty();
    par = std::max(par, 1);
    for (std::int64_t g = 0; g * par < requests; ++g)
        // Packet g is stamped issue + g; the channel hop makes none visible before issue + 1.
        q.push_back({issueTime + std::max<std::int64_t>(g, 1),
                     static_cast<int>(std::min<std::int64_t>(par, requests - g * par)), tile});
    if (requests == 0) {
        tiles_[tile].done(issueTime);
        freeTiles_.push_back(tile);
        return;
    }
    if (wasIdle) {
        // Readers are served before writers, each group in operator order, as the front end iterates them.
        auto key = [](int c) { return std::make_pair(c & 1, c >> 1); };
        active_.insert(std::upper_bound(active_.begin(), active_.end(), id,
                                        [&](int a, int b) { return key(a) < key(b); }),
                       id);
    }
}

void HbmNode::setWindow(int client, int requests, int returnLatency) {
    if (client >= static_cast<int>(windows_.size())) windows_.resize(client + 1);
    windows_[client].cap = requests;
    windows_[client].returnLatency = returnLatency;
}

void HbmNode::release(int client, std::int64_t cycle) {
    if (client >= static_cast<int>(windows_.size())) return;
    auto& w = windows_[client];
    while (!w.back.empty() && w.back.top() <= cycle) {
        w.back.pop();
        --w.outstanding;
    }
}

bool HbmNode::windowAllows(int client, int count) const {
    if (client >= static_cast<int>(windows_.size()) || windows_[client].cap == 0) return true;
    const auto& w = windows_[client];
    return w.outstanding == 0 || w.outstanding + count <= w.cap; // a packet wider than the window goes alone
}

std::int64_t HbmNode::nextCycle() const {
    std::int64_t next = kNever;
    for (int c : active_) {
        std::int64_t v = std::max(clients_[c].front().visible, cycle_);
        int client = c >> 1;
        // A client at its window's cap waits at least until its earliest response is back.
        if (!windowAllows(client, clients_[c].front().count) && !windows_[client].back.empty())
            v = std::max(v, windows_[client].back.top());
        next = std::min(next, v);
    }
    return next;
}

int HbmNode::channelFor(int requestInCycle) {
    if (p_.triangularOffset) {
        // step-perf: off = (off + i) % C for the i-th request of the cycle.
        cycleOffset_ = (cycleOffset_ + requestInCycle) % p_.channels;
        return cycleOffset_;
    }
    return (offset_ + requestInCycle) % p_.channels;
}

void HbmNode::serve(int channel, std::int64_t arrive, int tile, int client, bool& completed) {
    std::int64_t start = std::max(channelFree_[channel], arrive);
    channelFree_[channel] = start + p_.initInterval;
    std::int64_t latency = p_.latency;
    if (p_.startupEveryRequest || !channelStarted_[channel]) latency += p_.startup;
    channelStarted_[channel] = true;
    // The response is visible at the front end after the service latency, and one hop later at the client.
    std::int64_t delivered = start + latency + 1;
    if (client < static_cast<int>(windows_.size()) && windows_[client].cap > 0) {
        windows_[client].back.push(delivered + windows_[client].returnLatency);
        ++windows_[client].outstanding;
    }
    Tile& t = tiles_[tile];
    t.lastDelivery = std::max(t.lastDelivery, delivered);
    ++stats_.requests;
    if (--t.remaining == 0) {
        stats_.lastDelivery = std::max(stats_.lastDelivery, t.lastDelivery);
        Completion done = std::move(t.done);
        freeTiles_.push_back(tile);
        done(t.lastDelivery);
        completed = true;
    }
}

void HbmNode::advanceTo(std::int64_t upTo) {
    for (;;) {
        std::int64_t c = nextCycle();
        if (c == kNever || c > upTo) return;
        bool completed = false;
        int inCycle = 0;
        cycleOffset_ = offset_;
        for (std::size_t k = 0; k < active_.size(); ++k) {
            auto& q = clients_[active_[k]];
            if (q.front().visible > c) continue;
            int client = active_[k] >> 1;
            release(client, c);
            if (!windowAllows(client, q.front().count)) continue;
            Packet pk = q.front();
            q.pop_front();
            for (int r = 0; r < pk.count; ++r)
                serve(channelFor(inCycle++), c + 1, pk.tile, client, completed);
        }
        offset_ =
            p_.triangularOffset ? (cycleOffset_ + inCycle) % p_.channels : (offset_ + inCycle) % p_.channels;
        active_.erase(
            std::remove_if(active_.begin(), active_.end(), [&](int id) { return clients_[id].empty(); }),
            active_.end());
        cycle_ = c + 1;
        if (completed) return;
    }
}

} // namespace steprdu::hw::mem
