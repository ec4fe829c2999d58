#include "hw/fabric/LaneBundle.h"

#include <algorithm>
#include <stdexcept>

namespace steprdu::hw {

LaneBundle::LaneBundle(std::vector<std::unique_ptr<FabricSegment>> lanes) : lanes_(std::move(lanes)) {
    if (lanes_.empty()) throw std::logic_error("LaneBundle: no lanes");
}

std::int64_t LaneBundle::share(std::int64_t bytes, int lane) const {
    const std::int64_t n = lanes();
    return bytes / n + (lane < bytes % n ? 1 : 0);
}

void LaneBundle::send(std::int64_t bytes, Cycle at, Cycle tailReady, PacketSink* sink, std::uint64_t tag) {
    const std::uint64_t id = next_++;
    Message& m = messages_[id];
    m = {bytes, sink, tag, 0, kNever, 0};
    // A piece may be released late (once every piece of the previous leg is in), never before now.
    at = std::max(at, now());
    for (int l = 0; l < lanes(); ++l)
        if (share(bytes, l) > 0 || l == 0) ++m.left;
    for (int l = 0; l < lanes(); ++l) {
        const std::int64_t b = share(bytes, l);
        if (b > 0 || l == 0) lanes_[l]->send(b, at, std::max(tailReady, at), this, id);
    }
}

int LaneBundle::open(std::int64_t bytes, PacketSink* sink, std::uint64_t tag) {
    const std::uint64_t id = next_++;
    messages_[id] = {bytes, sink, tag, -1, kNever, 0};
    return static_cast<int>(id);
}

void LaneBundle::release(int message, int, Cycle at, Cycle tailReady) {
    auto it = messages_.find(static_cast<std::uint64_t>(message));
    const Message m = it->second;
    messages_.erase(it);
    send(m.bytes, at, tailReady, m.sink, m.tag);
}

void LaneBundle::delivered(std::uint64_t id, int dest, Cycle head, Cycle tail) {
    auto it = messages_.find(id);
    Message& m = it->second;
    m.head = std::min(m.head, head);
    m.tail = std::max(m.tail, tail);
    if (--m.left > 0) return;
    const Message done = m;
    messages_.erase(it);
    if (done.sink->wantsParts())
        done.sink->partDelivered(done.tag, dest, 0, 1, done.bytes, done.head, done.tail);
    else
        done.sink->delivered(done.tag, dest, done.head, done.tail);
}

} // namespace steprdu::hw

namespace steprdu::hw {

std::unique_ptr<FabricSegment> bundleLanes(std::vector<std::unique_ptr<FabricSegment>> lanes) {
    if (lanes.size() == 1) return std::move(lanes.front());
    return std::make_unique<LaneBundle>(std::move(lanes));
}

} // namespace steprdu::hw
