#pragma once
// The route of one producer's output (or of a Broadcast's outputs, as one multicast): a branch per
// consumer stream. A branch on the producer's own unit is a local hop; the others share one send on the
// fabric (a multicast tree when there are several). A branch may pass through a stage buffer in a PMU: the
// tile is written into the PMU at its write port, read out at its read port, and sent on to the consumer.
// Stop tokens and Done travel on the control fabric and never overtake the data ahead of them; credits come
// back the same way.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hw/fabric/FabricSegment.h"
#include "hw/fabric/StageBuffer.h"
#include "hw/fabric/StreamRoute.h"
#include "hw/fabric/TokenChannel.h"

namespace steprdu::hw {

class FabricRoute : public StreamRoute, public PacketSink {
  public:
    struct Stage {
        StageBuffer* buffer = nullptr;
        int units = 1; // buffers (PMUs) whose SRAM it may use
        // Per lane, the buffer its piece streams through at that buffer's own ports (empty: every piece
        // through `buffer`'s ports, `units` wide).
        std::vector<StageBuffer*> laneBuffers;
        std::unique_ptr<FabricSegment> out;
    };
    struct Branch {
        TokenChannel* channel = nullptr;
        bool local = false; // the consumer runs on the producer's unit
        Cycle control = 1;  // control-fabric latency between producer and consumer, each way
        std::unique_ptr<Stage> stage;
    };

    explicit FabricRoute(Cycle localHop) : localHop_(localHop) {}
    // The fabric leg to the non-local branches, in the order they were added.
    void setFabric(std::unique_ptr<FabricSegment> s) { fabric_ = std::move(s); }
    void addBranch(Branch b);

    void carry(TokenChannel& ch, std::uint64_t seq, std::int64_t bytes, bool data, Cycle at,
               Cycle tailReady) override;
    Cycle creditLatency(const TokenChannel& ch) const override;
    // The fabric reports each packet: a stage forwards a packet as soon as it is in (in the flit-level mode,
    // each flit), and a consumer sees its element once the last packet has arrived.
    void delivered(std::uint64_t tag, int dest, Cycle head, Cycle tail) override;
    bool wantsParts() const override { return true; }
    void headDelivered(std::uint64_t tag, int dest, Cycle head) override;
    void partDelivered(std::uint64_t tag, int dest, int part, int parts, std::int64_t bytes, Cycle head,
                       Cycle tail) override;

  private:
    struct Pending {
        std::vector<std::uint64_t> seq; // per branch
        std::vector<int> partsLeft;     // per branch: packets not yet at the consumer (-1: none seen yet)
        std::vector<int> forward;       // per branch with a stage: its second-leg message (-1: not opened)
        std::vector<Cycle> first, last; // per branch: the earliest head, the latest tail so far
        std::int64_t bytes = 0;
        Cycle tailReady = 0; // the latest any branch's producer allows the tail to leave
        int waiting = 0;     // branches whose token has not been handed over yet
        int open = 0;        // fabric branches not yet arrived
    };
    int branchOf(const TokenChannel& ch) const;
    void forwardFromStage(std::uint64_t ordinal, int branch, int part, std::int64_t bytes, Cycle head,
                          Cycle tail);
    void arrivedPart(std::uint64_t ordinal, int branch, int parts, Cycle head, Cycle tail);

    Cycle localHop_;
    std::unique_ptr<FabricSegment> fabric_;
    std::vector<Branch> branches_;
    std::vector<int> fabricBranches_; // branch index of each fabric destination
    std::vector<std::uint64_t> nextOrdinal_;
    std::map<std::uint64_t, Pending> pending_;
    std::vector<std::int64_t> stageDemand_;
};

} // namespace steprdu::hw
