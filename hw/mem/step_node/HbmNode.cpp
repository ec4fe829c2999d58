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
    period_.valid = false;
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
    tiles_[tile] = Tile{requests, 0, 0, std::move(done)};
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
    period_.valid = false;
    if (client >= static_cast<int>(windows_.size())) windows_.resize(client + 1);
    windows_[client].slots.setCap(requests);
    windows_[client].returnLatency = returnLatency;
}

void HbmNode::release(int client, std::int64_t cycle) {
    if (client >= static_cast<int>(windows_.size())) return;
    windows_[client].slots.release(cycle);
}

bool HbmNode::windowAllows(int client, int count) const {
    if (client >= static_cast<int>(windows_.size()) || windows_[client].slots.cap() == 0) return true;
    return windows_[client].slots.allows(count);
}

std::int64_t HbmNode::nextCycle() const {
    if (nextValid_) return next_;
    std::int64_t next = kNever;
    for (int c : active_) {
        std::int64_t v = std::max(clients_[c].front.visible(), cycle_);
        int client = c >> 1;
        // A client at its window's cap waits at least until its earliest response is back.
        if (!windowAllows(client, clients_[c].front.count()))
            v = std::max(v, windows_[client].slots.earliest());
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
    bool bound = false;
    for (int r = 0; r < count; ++r, ++i) {
        int channel;
        if (p_.triangularOffset) { // step-perf: off = (off + i) % C for the i-th request of the cycle
            offset = wrap(offset + i, channels);
            channel = offset;
        } else {
            channel = wrap(offset_ + i, channels);
        }
        bound |= freeAt[channel] < arrive;
        const std::int64_t start = std::max(freeAt[channel], arrive);
        freeAt[channel] = start + interval;
        std::int64_t latency = p_.latency;
        if (p_.startupEveryRequest || !channelStarted_[channel]) latency += p_.startup;
        if (!p_.startupEveryRequest) channelStarted_[channel] = true;
        // The response is visible at the front end after the service latency, one hop later at the client.
        const std::int64_t delivered = start + latency + 1;
        if (window) window->slots.add(delivered + window->returnLatency);
        last = std::max(last, delivered);
    }
    cycleOffset_ = offset;
    inCycle = i;
    period_.arrivalBound |= bound;
    stats_.requests += count;
    Tile& t = tiles_[tile];
    t.lastDelivery = std::max(t.lastDelivery, last);
    t.periodLast = std::max(t.periodLast, last);
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
        int inCycle = 0, served = 0;
        cycleOffset_ = offset_;
        for (std::size_t k = 0; k < active_.size(); ++k) {
            auto& q = clients_[active_[k]];
            TileRun& run = q.front;
            if (run.visible() > c) continue;
            const int client = active_[k] >> 1;
            Window* window = nullptr;
            if (client < static_cast<int>(windows_.size()) && windows_[client].slots.cap() > 0) {
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
            ++served;
        }
        offset_ = wrap((p_.triangularOffset ? cycleOffset_ : offset_) + inCycle % p_.channels, p_.channels);
        if (emptied)
            active_.erase(
                std::remove_if(active_.begin(), active_.end(), [&](int id) { return clients_[id].empty(); }),
                active_.end());
        const bool consecutive = c == cycle_;
        cycle_ = c + 1;
        if (completed) {
            period_.valid = false;
            return;
        }
        // A period is only made of consecutive cycles in which every active client was served.
        if (!consecutive || emptied || served != static_cast<int>(active_.size())) period_.valid = false;
        followPeriod(upTo);
    }
}

bool HbmNode::steady() const {
    for (int id : active_) {
        const TileRun& run = clients_[id].front;
        if (run.visible() > cycle_ || run.left <= run.par) return false;
        const int client = id >> 1;
        if (client < static_cast<int>(windows_.size()) && windows_[client].slots.cap() > 0) return false;
    }
    return !active_.empty();
}

void HbmNode::followPeriod(std::int64_t upTo) {
    if (!p_.fastForward || !steady()) {
        period_.valid = false;
        return;
    }
    Period& s = period_;
    const int channels = p_.channels;
    auto snapshot = [&] {
        s.valid = true;
        s.cycle = cycle_;
        s.offset = offset_;
        s.arrivalBound = false;
        s.channelFree = channelFree_;
        for (int id : active_)
            tiles_[clients_[id].front.tile].periodLast = 0;
    };
    // Until every channel has started, a request's latency depends on more than the channel's free cycle.
    if (!p_.startupEveryRequest &&
        std::find(channelStarted_.begin(), channelStarted_.end(), false) != channelStarted_.end())
        return;
    if (!s.valid) {
        snapshot();
        return;
    }
    const std::int64_t P = cycle_ - s.cycle;
    if (s.offset != offset_) {
        if (P > 4 * channels) snapshot();
        return;
    }
    // Back at the snapshot relative to the clock: a channel free by the next arrival is as good as idle.
    bool clocked = true;
    for (int ch = 0; ch < channels && clocked; ++ch)
        clocked = std::max<std::int64_t>(channelFree_[ch] - cycle_, 1) ==
                  std::max<std::int64_t>(s.channelFree[ch] - s.cycle, 1);
    std::int64_t shift = P;
    if (!clocked) {
        // Or every channel shifted alike, at least as far as the clock, with no request having waited for its
        // arrival: arrivals then never catch up with the channels.
        shift = channelFree_[0] - s.channelFree[0];
        bool shifted = !s.arrivalBound && shift >= P;
        for (int ch = 1; ch < channels && shifted; ++ch)
            shifted = channelFree_[ch] - s.channelFree[ch] == shift;
        if (!shifted) {
            if (P > 4 * channels) snapshot();
            return;
        }
    }
    // Whole periods until the horizon or until some run's last packet.
    std::int64_t k = (upTo - cycle_ + 1) / P;
    for (int id : active_) {
        const TileRun& run = clients_[id].front;
        k = std::min(k, (run.left - 1) / (P * run.par));
    }
    if (k <= 0) return;
    std::int64_t requests = 0;
    for (int id : active_) {
        TileRun& run = clients_[id].front;
        const std::int64_t n = k * P * run.par;
        run.packet += k * P;
        run.left -= n;
        Tile& t = tiles_[run.tile];
        t.remaining -= n;
        t.lastDelivery = std::max(t.lastDelivery, t.periodLast + k * shift);
        requests += n;
    }
    for (auto& f : channelFree_)
        f += k * shift;
    stats_.requests += requests;
    stats_.skippedCycles += k * P;
    cycle_ += k * P;
    nextValid_ = false;
    s.valid = false;
}

} // namespace steprdu::hw::mem
