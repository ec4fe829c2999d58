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

int LaneBundle::parts(std::int64_t bytes) const {
    int n = 0;
    for (int l = 0; l < lanes(); ++l)
        if (carries(bytes, l)) n += lanes_[l]->parts(share(bytes, l));
    return n;
}

std::uint64_t LaneBundle::newMessage(std::int64_t bytes, PacketSink* sink, std::uint64_t tag) {
    const std::uint64_t id = next_++;
    const int n = parts(bytes);
    messages_[id] = {bytes,
                     sink,
                     tag,
                     n,
                     destinations_,
                     std::vector<int>(destinations_, n),
                     std::vector<Cycle>(destinations_, kNever),
                     std::vector<Cycle>(destinations_, 0),
                     std::vector<bool>(destinations_, false),
                     {}};
    return id;
}

void LaneBundle::send(std::int64_t bytes, Cycle at, Cycle tailReady, PacketSink* sink, std::uint64_t tag) {
    const std::uint64_t id = newMessage(bytes, sink, tag);
    // A piece may be released late (once every piece of the previous leg is in), never before now.
    at = std::max(at, now());
    // An ideal lane reports at once and may complete the message: nothing of it is used after the sends.
    for (int l = 0; l < lanes(); ++l)
        if (carries(bytes, l))
            lanes_[l]->send(share(bytes, l), at, std::max(tailReady, at), this, laneTag(id, l));
}

int LaneBundle::open(std::int64_t bytes, PacketSink* sink, std::uint64_t tag) {
    const std::uint64_t id = newMessage(bytes, sink, tag);
    std::vector<int> pieces(lanes(), -1);
    for (int l = 0; l < lanes(); ++l)
        if (carries(bytes, l)) pieces[l] = lanes_[l]->open(share(bytes, l), this, laneTag(id, l));
    messages_.at(id).laneMessage = std::move(pieces);
    return static_cast<int>(id);
}

void LaneBundle::release(int message, int part, Cycle at, Cycle tailReady) {
    const int lane = part % lanes();
    const int piece = messages_.at(static_cast<std::uint64_t>(message)).laneMessage.at(lane);
    at = std::max(at, now());
    lanes_[lane]->release(piece, part / lanes(), at, std::max(tailReady, at));
}

void LaneBundle::headDelivered(std::uint64_t laneTag, int dest, Cycle head) {
    Message& m = messages_.at(laneTag / lanes_.size());
    if (m.headTold[dest]) return;
    m.headTold[dest] = true;
    m.sink->headDelivered(m.tag, dest, head);
}

void LaneBundle::delivered(std::uint64_t laneTag, int dest, Cycle head, Cycle tail) {
    const int lane = static_cast<int>(laneTag % lanes_.size());
    partDelivered(laneTag, dest, 0, 1, share(messages_.at(laneTag / lanes_.size()).bytes, lane), head, tail);
}

void LaneBundle::partDelivered(std::uint64_t laneTag, int dest, int part, int, std::int64_t bytes, Cycle head,
                               Cycle tail) {
    const std::uint64_t id = laneTag / lanes_.size();
    const int lane = static_cast<int>(laneTag % lanes_.size());
    auto it = messages_.find(id);
    Message& m = it->second;
    m.head[dest] = std::min(m.head[dest], head);
    m.tail[dest] = std::max(m.tail[dest], tail);
    const bool complete = --m.left[dest] == 0;
    // The consumer may start on the element as its first piece arrives.
    if (!complete && !m.headTold[dest]) headDelivered(laneTag, dest, m.head[dest]);
    // Callbacks may send on this bundle: take what they need first.
    PacketSink* sink = m.sink;
    const std::uint64_t tag = m.tag;
    const int parts = m.parts;
    const Cycle h = m.head[dest], t = m.tail[dest];
    if (complete && --m.open == 0) messages_.erase(it);
    if (sink->wantsParts())
        sink->partDelivered(tag, dest, part * lanes() + lane, parts, bytes, head, tail);
    else if (complete)
        sink->delivered(tag, dest, h, t);
}

} // namespace steprdu::hw

namespace steprdu::hw {

std::unique_ptr<FabricSegment> bundleLanes(std::vector<std::unique_ptr<FabricSegment>> lanes,
                                           int destinations) {
    if (lanes.size() == 1) return std::move(lanes.front());
    return std::make_unique<LaneBundle>(std::move(lanes), destinations);
}

} // namespace steprdu::hw
