#pragma once
// A stream's lanes as one leg: each lane is its own segment (a flow on the mesh, or a dedicated link), a
// message is cut into one piece per lane, and the message has arrived at a destination once every piece has.
// The pieces leave together, so the lanes move in lock step and one credit per element stands for the
// credits of all its pieces. To a sink the bundle reports each message once per destination, as a single
// part: its first piece's head, its last piece's tail. A multicast's lanes each reach every destination, in
// the same order.
#include <memory>
#include <unordered_map>
#include <vector>

#include "hw/fabric/FabricSegment.h"

namespace steprdu::hw {

class LaneBundle : public FabricSegment, public PacketSink {
  public:
    LaneBundle(std::vector<std::unique_ptr<FabricSegment>> lanes, int destinations);

    int lanes() const { return static_cast<int>(lanes_.size()); }
    // Bytes lane `lane` carries of a `bytes` message: an even share, the first lanes taking the remainder.
    std::int64_t share(std::int64_t bytes, int lane) const;

    void send(std::int64_t bytes, Cycle at, Cycle tailReady, PacketSink* sink, std::uint64_t tag) override;
    int open(std::int64_t bytes, PacketSink* sink, std::uint64_t tag) override;
    void release(int message, int part, Cycle at, Cycle tailReady) override;

    void delivered(std::uint64_t id, int dest, Cycle head, Cycle tail) override;
    void headDelivered(std::uint64_t id, int dest, Cycle head) override;

  private:
    struct Message {
        std::int64_t bytes = 0;
        PacketSink* sink = nullptr;
        std::uint64_t tag = 0;
        int open = 0;          // destinations not yet reached
        std::vector<int> left; // per destination: pieces not yet arrived
        std::vector<Cycle> head, tail;
        std::vector<bool> headTold; // per destination: the sink has heard of the first packet
    };
    std::vector<std::unique_ptr<FabricSegment>> lanes_;
    int destinations_;
    std::unordered_map<std::uint64_t, Message> messages_; // by id: sent, or opened and not yet released
    std::uint64_t next_ = 0;
};

} // namespace steprdu::hw

namespace steprdu::hw {

// One lane as it is, several as a bundle; every lane reaches `destinations` destinations.
std::unique_ptr<FabricSegment> bundleLanes(std::vector<std::unique_ptr<FabricSegment>> lanes,
                                           int destinations = 1);

} // namespace steprdu::hw
