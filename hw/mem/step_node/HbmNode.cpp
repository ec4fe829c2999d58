#include "hw/mem/step_node/HbmNode.h"

#include <algorithm>

namespace steprdu::hw::mem {

void HbmNode::ClientQueue::push(const TileRun& r) {
    if (busy) {
        rest.push_back(r);
        return;
    }
    front = r;
    busy = true;
}

void HbmNode::ClientQueue::pop() {
    busy = !rest.empty();
    if (!busy) return;
    front = rest.front();
    rest.pop_front();
}

HbmNode::HbmNode(const HbmParams& p)
    : p_(p), channelFree_(p.channels, 0), channelStarted_(p.channels, false) {}

void HbmNode::submit(int client, bool write, std::int64_t issueTime, std::int64_t requests, int par,
                     Completion done) {
    nextValid_ = false;
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
    // The channel hop makes no packet visible before issue + 1.
    if (requests > 0) q.push({issueTime, requests, 0, std::max(par, 1), tile});
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
    nextValid_ = false;
    if (client >= static_cast<int>(windows_.size())) windows_.resize(client + 1);
    windows_[client].cap = requests;
    windows_[client].returnLatency = returnLatency;
}

void HbmNode::release(int client, std::int64_t cycle) {
    if (client >= static_cast<int>(windows_.size())) return;
    windows_[client].back.releaseUpTo(cycle);
}

bool HbmNode::windowAllows(int client, int count) const {
    if (client >= static_cast<int>(windows_.size()) || windows_[client].cap == 0) return true;
    const auto& w = windows_[client];
    return w.back.empty() || w.back.size() + count <= w.cap; // a packet wider than the window goes alone
}

std::int64_t HbmNode::nextCycle() const {
    if (nextValid_) return next_;
    std::int64_t next = kNever;
    for (int c : active_) {
        std::int64_t v = std::max(clients_[c].front.visible(), cycle_);
        int client = c >> 1;
        // A client at its window's cap waits at least until its earliest response is back.
        if (!windowAllows(client, clients_[c].front.count()) && !windows_[client].back.empty())
            v = std::max(v, windows_[client].back.earliest());
        next = std::min(next, v);
    }
    next_ = next;
    nextValid_ = true;
    return next;
}

namespace {
// x mod n for x >= 0, without a division in the usual case of x < 2n (a division costs as much as the rest
// of a request's service).
int wrap(int x, int n) {
    if (x < n) return x;
    x -= n;
    return x < n ? x : x % n;
}
} // namespace

// Inlined into advanceTo: a packet is one or two requests, so a call costs as much as the work.
[[gnu::always_inline]] inline void HbmNode::servePacket(int count, std::int64_t arrive, int tile,
                                                        Window* window, int& inCycle, bool& completed) {
    // The channel walk and the channels' free cycles stay in registers: this loop is the roofline's hot path.
    std::int64_t* freeAt = channelFree_.data();
    const int channels = p_.channels;
    const std::int64_t interval = p_.initInterval;
    int offset = cycleOffset_, i = inCycle;
    std::int64_t last = 0;
    for (int r = 0; r < count; ++r, ++i) {
        int channel;
        if (p_.triangularOffset) { // step-perf: off = (off + i) % C for the i-th request of the cycle
            offset = wrap(offset + i, channels);
            channel = offset;
        } else {
            channel = wrap(offset_ + i, channels);
        }
        const std::int64_t start = std::max(freeAt[channel], arrive);
        freeAt[channel] = start + interval;
        std::int64_t latency = p_.latency;
        if (p_.startupEveryRequest || !channelStarted_[channel]) latency += p_.startup;
        if (!p_.startupEveryRequest) channelStarted_[channel] = true;
        // The response is visible at the front end after the service latency, one hop later at the client.
        const std::int64_t delivered = start + latency + 1;
        if (window) window->back.add(delivered + window->returnLatency);
        last = std::max(last, delivered);
    }
    cycleOffset_ = offset;
    inCycle = i;
    stats_.requests += count;
    Tile& t = tiles_[tile];
    t.lastDelivery = std::max(t.lastDelivery, last);
    // A tile's last packet holds its last requests: it completes with that packet.
    if ((t.remaining -= count) == 0) {
        stats_.lastDelivery = std::max(stats_.lastDelivery, t.lastDelivery);
        Completion done = std::move(t.done);
        freeTiles_.push_back(tile);
        done(t.lastDelivery);
        completed = true;
    }
}

void HbmNode::advanceTo(std::int64_t upTo) {
    for (;;) {
        const std::int64_t c = nextCycle();
        if (c == kNever || c > upTo) return;
        nextValid_ = false;
        bool completed = false, emptied = false;
        int inCycle = 0;
        cycleOffset_ = offset_;
        for (std::size_t k = 0; k < active_.size(); ++k) {
            auto& q = clients_[active_[k]];
            TileRun& run = q.front;
            if (run.visible() > c) continue;
            const int client = active_[k] >> 1;
            Window* window = nullptr;
            if (client < static_cast<int>(windows_.size()) && windows_[client].cap > 0) {
                window = &windows_[client];
                release(client, c);
                if (!windowAllows(client, run.count())) continue;
            }
            const int count = run.count(), tile = run.tile;
            ++run.packet;
            if ((run.left -= count) == 0) {
                q.pop();
                emptied = emptied || q.empty();
            }
            servePacket(count, c + 1, tile, window, inCycle, completed);
        }
        offset_ = wrap((p_.triangularOffset ? cycleOffset_ : offset_) + inCycle % p_.channels, p_.channels);
        if (emptied)
            active_.erase(
                std::remove_if(active_.begin(), active_.end(), [&](int id) { return clients_[id].empty(); }),
                active_.end());
        cycle_ = c + 1;
        if (completed) return;
    }
}

} // namespace steprdu::hw::mem
