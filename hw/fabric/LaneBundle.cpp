#include "hw/fabric/LaneBundle.h"

#include <algorithm>
#include <stdexcept>

namespace steprdu::hw {

LaneBundle::LaneBundle(std::vector<std::unique_ptr<FabricSegment>> lanes, int destinations)
    : lanes_(std::move(lanes)), destinations_(destinations) {
    if (lanes_.empty() || destinations_ < 1) throw std::logic_error("LaneBundle: no lanes or destinations");
}

std::int64_t LaneBundle::share(std::int64_t bytes, int lane) const {
    const std::int64_t n = lanes();
    return bytes / n + (lane < bytes % n ? 1 : 0);
}

void LaneBundle::send(std::int64_t bytes, Cycle at, Cycle tailReady, PacketSink* sink, std::uint64_t tag) {
    const std::uint64_t id = next_++;
    Message& m = messages_[id];
    int pieces = 0;
    for (int l = 0; l < lanes(); ++l)
        if (share(bytes, l) > 0 || l == 0) ++pieces;
    m = {bytes,
         sink,
         tag,
         destinations_,
         std::vector<int>(destinations_, pieces),
         std::vector<Cycle>(destinations_, kNever),
         std::vector<Cycle>(destinations_, 0),
         std::vector<bool>(destinations_, false)};
    // A piece may be released late (once every piece of the previous leg is in), never before now.
    at = std::max(at, now());
    for (int l = 0; l < lanes(); ++l) {
        const std::int64_t b = share(bytes, l);
        if (b > 0 || l == 0) lanes_[l]->send(b, at, std::max(tailReady, at), this, id);
    }
}

int LaneBundle::open(std::int64_t bytes, PacketSink* sink, std::uint64_t tag) {
    const std::uint64_t id = next_++;
    messages_[id] = {bytes, sink, tag, 0, {}, {}, {}, {}};
    return static_cast<int>(id);
}

void LaneBundle::release(int message, int, Cycle at, Cycle tailReady) {
    auto it = messages_.find(static_cast<std::uint64_t>(message));
    const Message m = it->second;
    messages_.erase(it);
    send(m.bytes, at, tailReady, m.sink, m.tag);
}

void LaneBundle::headDelivered(std::uint64_t id, int dest, Cycle head) {
    Message& m = messages_.at(id);
    if (m.headTold[dest]) return;
    m.headTold[dest] = true;
    m.sink->headDelivered(m.tag, dest, head);
}

void LaneBundle::delivered(std::uint64_t id, int dest, Cycle head, Cycle tail) {
    auto it = messages_.find(id);
    Message& m = it->second;
    m.head[dest] = std::min(m.head[dest], head);
    m.tail[dest] = std::max(m.tail[dest], tail);
    if (--m.left[dest] > 0) {
        if (!m.headTold[dest]) headDelivered(id, dest, m.head[dest]);
        return;
    }
    // Callbacks may send on this bundle: take what they need first.
    PacketSink* sink = m.sink;
    const std::uint64_t tag = m.tag;
    const std::int64_t bytes = m.bytes;
    head = m.head[dest];
    tail = m.tail[dest];
    if (--m.open == 0) messages_.erase(it);
    if (sink->wantsParts())
        sink->partDelivered(tag, dest, 0, 1, bytes, head, tail);
    else
        sink->delivered(tag, dest, head, tail);
}

} // namespace steprdu::hw

namespace steprdu::hw {

std::unique_ptr<FabricSegment> bundleLanes(std::vector<std::unique_ptr<FabricSegment>> lanes,
                                           int destinations) {
    if (lanes.size() == 1) return std::move(lanes.front());
    return std::make_unique<LaneBundle>(std::move(lanes), destinations);
}

} // namespace steprdu::hw
