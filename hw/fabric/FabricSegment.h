#pragma once
// One leg of a stream's route on the vector fabric, from one endpoint to one or more: a static flow over
// the mesh, or (on the ideal network of STeP section 4.5) a dedicated link to each destination.
#include <map>
#include <memory>
#include <vector>

#include "hw/fabric/RdnMesh.h"

namespace steprdu::hw {

class FabricSegment {
  public:
    virtual ~FabricSegment() = default;
    // Sends `bytes` to every destination: the head may leave at `at`, the tail once it is ready.
    virtual void send(std::int64_t bytes, Cycle at, Cycle tailReady, PacketSink* sink, std::uint64_t tag) = 0;
    // The same in steps, for data forwarded as it arrives (RdnMesh::open and release): a message whose parts
    // are released in order.
    virtual int open(std::int64_t bytes, PacketSink* sink, std::uint64_t tag) = 0;
    virtual void release(int message, int part, Cycle at, Cycle tailReady) = 0;
    // The parts a message of `bytes` is delivered in (what a PacketSink that wants parts hears of).
    virtual int parts(std::int64_t bytes) const = 0;
};

class MeshSegment : public FabricSegment {
  public:
    MeshSegment(RdnMesh& mesh, int src, const std::vector<int>& dsts,
                const std::vector<bool>& columnFirst = {}, int packetFlits = -1)
        : mesh_(mesh), flow_(mesh.addFlow(src, dsts, columnFirst, packetFlits)) {}
    void send(std::int64_t bytes, Cycle at, Cycle tailReady, PacketSink* sink, std::uint64_t tag) override {
        mesh_.send(flow_, bytes, at, tailReady, sink, tag);
    }
    int open(std::int64_t bytes, PacketSink* sink, std::uint64_t tag) override {
        return mesh_.open(flow_, bytes, sink, tag);
    }
    void release(int message, int part, Cycle at, Cycle tailReady) override {
        mesh_.release(message, part, at, tailReady);
    }
    int parts(std::int64_t bytes) const override { return mesh_.partsFor(flow_, bytes); }

  private:
    RdnMesh& mesh_;
    int flow_;
};

// A link of `widthBytes` per cycle and `latency` cycles to each destination, shared with nothing else. It
// carries a message as one packet.
class IdealSegment : public FabricSegment {
  public:
    IdealSegment(int destinations, int widthBytes, int latency)
        : busy_(destinations, 0), width_(widthBytes), latency_(latency) {}
    void send(std::int64_t bytes, Cycle at, Cycle tailReady, PacketSink* sink, std::uint64_t tag) override {
        const Cycle occupancy = std::max<Cycle>(1, (bytes + width_ - 1) / width_);
        for (std::size_t d = 0; d < busy_.size(); ++d) {
            Cycle start = std::max(at, busy_[d]);
            Cycle tail = std::max(start + occupancy, tailReady);
            busy_[d] = tail;
            if (sink->wantsParts())
                sink->partDelivered(tag, static_cast<int>(d), 0, 1, bytes, start + latency_, tail + latency_);
            else
                sink->delivered(tag, static_cast<int>(d), start + latency_, tail + latency_);
        }
    }
    int open(std::int64_t bytes, PacketSink* sink, std::uint64_t tag) override {
        opened_[next_] = {bytes, sink, tag};
        return next_++;
    }
    void release(int message, int, Cycle at, Cycle tailReady) override {
        auto it = opened_.find(message);
        Opened o = it->second;
        opened_.erase(it);
        send(o.bytes, at, tailReady, o.sink, o.tag);
    }
    int parts(std::int64_t) const override { return 1; }

  private:
    struct Opened {
        std::int64_t bytes;
        PacketSink* sink;
        std::uint64_t tag;
    };
    std::vector<Cycle> busy_;
    int width_, latency_;
    std::map<int, Opened> opened_;
    int next_ = 0;
};

// A leg from endpoint `src` to `dsts`: a flow over `mesh` (each destination along the column first where
// `columnFirst` says so), or with no mesh (rdn.topology ideal) a dedicated link to each destination. On the
// mesh, `packetFlits` >= 0 sets the leg's packets' length at most (RdnMesh::addFlow).
inline std::unique_ptr<FabricSegment> makeSegment(RdnMesh* mesh, const RdnConfig& rdn, int src,
                                                  const std::vector<int>& dsts,
                                                  const std::vector<bool>& columnFirst,
                                                  int packetFlits = -1) {
    if (mesh) return std::make_unique<MeshSegment>(*mesh, src, dsts, columnFirst, packetFlits);
    return std::make_unique<IdealSegment>(static_cast<int>(dsts.size()), rdn.flit_bytes,
                                          rdn.link_latency_cycles);
}

} // namespace steprdu::hw
