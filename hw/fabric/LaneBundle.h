#pragma once
// A stream's lanes as one leg: each lane is its own segment (a flow on the mesh, or a dedicated link), a
// message is cut into one piece per lane, and the message has arrived at a destination once every piece has.
// The pieces leave together, so the lanes move in lock step and one credit per element stands for the
// credits of all its pieces. A multicast's lanes each reach every destination, in the same order.
//
// A sink that forwards data as it arrives (a stage buffer) hears of every packet of every lane as it comes
// in: part k of lane l is part k x lanes + l of the message. A stage forwards it as the same part of its next
// leg's bundle, which sends it on the same lane, so each lane streams through its own stage PMU (cut-through)
// and never waits for the other lanes. Other sinks hear of each message once per destination: its first
// piece's head, its last piece's tail.
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
    // Whether lane `lane` carries a piece of a `bytes` message (lane 0 always does).
    bool carries(std::int64_t bytes, int lane) const { return lane == 0 || share(bytes, lane) > 0; }

    void send(std::int64_t bytes, Cycle at, Cycle tailReady, PacketSink* sink, std::uint64_t tag) override;
    int open(std::int64_t bytes, PacketSink* sink, std::uint64_t tag) override;
    // Releases part k x lanes + l: part k of lane l's piece.
    void release(int message, int part, Cycle at, Cycle tailReady) override;
    int parts(std::int64_t bytes) const override;

    bool wantsParts() const override { return true; }
    void partDelivered(std::uint64_t laneTag, int dest, int part, int parts, std::int64_t bytes, Cycle head,
                       Cycle tail) override;
    void delivered(std::uint64_t laneTag, int dest, Cycle head, Cycle tail) override;
    void headDelivered(std::uint64_t laneTag, int dest, Cycle head) override;

  private:
    struct Message {
        std::int64_t bytes = 0;
        PacketSink* sink = nullptr;
        std::uint64_t tag = 0;
        int parts = 0;         // over every lane
        int open = 0;          // destinations not yet reached
        std::vector<int> left; // per destination: parts not yet arrived
        std::vector<Cycle> head, tail;
        std::vector<bool> headTold;   // per destination: the sink has heard of the first packet
        std::vector<int> laneMessage; // opened: each lane's message (-1: the lane carries nothing)
    };
    std::uint64_t newMessage(std::int64_t bytes, PacketSink* sink, std::uint64_t tag);
    // A lane's segment reports with tag message x lanes + lane.
    std::uint64_t laneTag(std::uint64_t id, int lane) const { return id * lanes_.size() + lane; }

    std::vector<std::unique_ptr<FabricSegment>> lanes_;
    int destinations_;
    std::unordered_map<std::uint64_t, Message> messages_; // by id: sent or opened, not yet arrived everywhere
    std::uint64_t next_ = 0;
};

} // namespace steprdu::hw

namespace steprdu::hw {

// One lane as it is, several as a bundle; every lane reaches `destinations` destinations.
std::unique_ptr<FabricSegment> bundleLanes(std::vector<std::unique_ptr<FabricSegment>> lanes,
                                           int destinations = 1);

} // namespace steprdu::hw
