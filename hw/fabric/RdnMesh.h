#pragma once
// The RDN vector fabric: a 2D mesh of RdnSwitch modules, one per unit site, with units and AGCUs attached
// as endpoints. Streams become static flows (dimension-order routes; a multicast flow is the tree of its
// routes) whose per-switch entries form the switches' routing tables.
//
// Packets are the events: a packet of F flits takes ceil(F x r) cycles on every link it crosses, where
// r = max(1, RTT / B) is the credit-limited rate of a link whose downstream buffer holds B flits and whose
// credit round trip is RTT = link + switch + credit + 1 cycles. Flow control is per hop and per flit, in
// lumped form: each link keeps, per slot of its downstream buffer, the cycle the slot's credit is back, and
// a packet may start when the slots its first flits need are free; a packet longer than the buffer holds the
// link while its head's grants further on can still hold up its tail there (wormhole; Hold). Output ports
// arbitrate round robin over input ports; input buffers are FIFO; an endpoint injects its messages in order
// of the cycle they may enter, whenever it learnt of them. A packet's head crosses a switch in
// `switch` cycles and a link in `link` cycles, so over H switches it arrives H x (switch + link) + F cycles
// after entering, with no contention. The flit-level mode sends every flit as its own packet through the same
// switches.
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "hw/arch/MeshPath.h"
#include "hw/config/HwConfig.h"
#include "hw/sim/Calendar.h"
#include "hw/sim/SimTime.h"
#include "hw/sim/Stats.h"

namespace steprdu::hw {

class RdnSwitch;

// Receives the deliveries of what was sent on its behalf (a stream's route).
class PacketSink {
  public:
    virtual ~PacketSink() = default;
    // What `tag` sent reached destination `dest` of its flow: its first flit at `head`, its last flit at
    // `tail` (both may lie in the future of the calling cycle).
    virtual void delivered(std::uint64_t tag, int dest, Cycle head, Cycle tail) = 0;
    // A sink that forwards data as it arrives (a stage buffer) hears of each packet instead: part `part` of
    // `parts` (one unless the flit-level mode split the send), `bytes` long.
    virtual bool wantsParts() const { return false; }
    virtual void partDelivered(std::uint64_t tag, int dest, int part, int parts, std::int64_t bytes,
                               Cycle head, Cycle tail) {}
    // A message sent in several packets: its first packet reached `dest` at `head` (before the rest).
    virtual void headDelivered(std::uint64_t tag, int dest, Cycle head) {}
};

struct MeshOptions {
    int rows = 1, cols = 1;
    int dieCols = 0; // columns per die; a link between dies adds d2dLatency (0 = one die)
    int flitBytes = 64;
    int switchLatency = 1;
    int linkLatency = 1;
    int creditLatency = 1;
    int bufferFlits = 4;
    int d2dLatency = 0;
    int controlHop = 1;
    bool flitLevel = false;
    int packetFlits = 0;      // flits per packet at most (0: a message is one packet)
    bool columnFirst = false; // yx dimension order
};

// The mesh of a configuration: its whole grid, its RDN parameters.
MeshOptions meshOptions(const HwConfig& cfg);

class RdnMesh : public sc_core::sc_module {
  public:
    RdnMesh(sc_core::sc_module_name name, const MeshOptions& o);
    ~RdnMesh() override;

    // Attaches an endpoint (a unit or an AGCU) to the switch at (row, col); returns its id.
    int attach(int row, int col, const std::string& name);
    // A static flow from endpoint `src` to each endpoint of `dsts`; returns its id. `columnFirst`, if given,
    // says per destination whether its route goes along the column first; otherwise the mesh's order.
    // `packetFlits` >= 0 cuts its messages into packets of at most that many flits instead of the mesh's
    // packetFlits (0: a message is one packet).
    int addFlow(int src, const std::vector<int>& dsts, const std::vector<bool>& columnFirst = {},
                int packetFlits = -1);
    // Sends `bytes` on `flow`: the head may enter at `at` (>= now), the tail is ready no earlier than
    // `tailReady`. The sink hears of each destination's arrival.
    void send(int flow, std::int64_t bytes, Cycle at, Cycle tailReady, PacketSink* sink, std::uint64_t tag);
    // The same in steps, for data forwarded as it arrives: open() a message of `bytes` and release() each of
    // its parts() in order: its packets of at most packetFlits flits (one flit each in the flit-level mode).
    int open(int flow, std::int64_t bytes, PacketSink* sink, std::uint64_t tag);
    int parts(int message) const { return messages_[message].parts; }
    // The packets a message of `bytes` is sent in on `flow`.
    int partsFor(int flow, std::int64_t bytes) const;
    void release(int message, int part, Cycle at, Cycle tailReady);

    // Switches a packet crosses from `src` to `dst`.
    int hops(int src, int dst) const;
    // Cycles a control token (stop token, credit) takes from `src` to `dst` on the control fabric.
    Cycle controlLatency(int src, int dst) const;
    // Cycles from a flit leaving `src` until the credit for it is back there from `dst`, uncontended.
    Cycle roundTrip(int src, int dst) const;
    const MeshOptions& options() const { return o_; }
    int numEndpoints() const { return static_cast<int>(endpoints_.size()); }

    // Totals over every link between switches (not the unit ports).
    std::int64_t linkBytes() const;
    std::int64_t packetHops() const { return grants_; }
    std::int64_t flitsDelivered() const { return flitsDelivered_; }
    void reportStats(StatsRegistry& stats, const std::string& prefix, Cycle elapsed) const;
    // One line per link that still holds or waits for a packet (deadlock reports).
    std::vector<std::string> blockedLinks() const;

  private:
    friend class RdnSwitch;
    static constexpr int kPorts = kDirections; // a port per direction (MeshPath.h); local ports follow

    struct Link {
        int arbiter = -1;  // the switch that arbitrates it (its source, or the endpoint's switch)
        int toSwitch = -1; // -1: ejection into an endpoint
        int toPort = -1;   // input port at toSwitch
        int endpoint = -1; // injection: the sending endpoint; ejection: the receiving one
        bool injection = false, betweenSwitches = false;
        int latency = 1;
        int buffer = 0;      // flits of the downstream buffer (0: unbounded)
        double inv = 1;      // cycles per flit
        Cycle busyUntil = 0; // when the link takes the next packet (unknown while held)
        bool held = false;
        std::int64_t flits = 0;  // flits sent so far: flit k uses slot k mod buffer
        std::vector<Cycle> slot; // per downstream slot: when its credit is back (kNever = still occupied)
        int rr = 0;              // round-robin pointer over input ports
        int requests = 0;        // buffer heads that want this link now
        int lockedTo = -1;       // flit-level mode: the input port whose packet owns it until its tail
        std::int64_t busyCycles = 0, bytes = 0, packets = 0;
        std::string name; // last: arbitration reads the fields above
    };
    struct FlowNode {
        int link = -1;
        std::vector<int> children;
        std::vector<int> childLinks; // the children's links, in the same order
        std::vector<int> dests;      // an ejection node: indices into the flow's destinations
    };
    struct Flow {
        int src = -1;
        std::vector<int> dsts;
        std::vector<FlowNode> nodes; // node 0 is the source's injection link
        int packetFlits = 0;         // flits per packet at most (0: a message is one packet)
    };
    // What one send() carries; the flit-level mode splits it into one packet per flit.
    struct Message {
        int flow = -1, flits = 1;
        int partFlits = 1; // flits per part (the last may have fewer)
        std::int64_t bytes = 0;
        PacketSink* sink = nullptr;
        std::uint64_t tag = 0;
        int parts = 1;
        std::vector<int> got; // per destination: packets arrived
        std::vector<Cycle> head, tail;
        int open = 0;   // destinations still waiting
        int queued = 0; // packets in its source's queue
    };
    struct Packet {
        int flow = -1, flits = 0, message = -1;
        int part = 0, parts = 1; // flit-level mode: this flit's place in its packet
        std::int64_t bytes = 0;
        int live = 0; // visits not yet finished
    };
    // A packet waiting in one input buffer (or at its source) for the links of its tree node's children.
    struct Visit {
        int packet = -1;
        int node = -1;   // the tree node of the link it arrived on; -1 at the source
        int inPort = -1; // input port at the switch; -1 at the source
        Cycle req = 0;   // its head may leave
        Cycle tailReady = 0;
        std::int64_t k0 = 0; // its first flit's index on the arrival link
        Cycle arrivalGrant = 0, arrivalTail = 0;
        int granted = 0, children = 1;
        int firstLink = -1;     // the link of its first branch (its only one, unless it is a multicast fork)
        std::uint64_t done = 0; // a bit per child granted (a switch has far fewer than 64 outputs)
        Cycle maxGrant = 0, maxTail = 0;
        double maxInv = 1;
        int hold = -1; // the Hold of the link it arrived on, while that link is held
        int next = -1; // the visit behind it in the same input buffer
    };
    // A link crossed by a packet longer than its downstream buffer. Flit j crosses it only once flit j - B
    // (B that buffer) has left the buffer, i.e. crossed the next link, which in turn waits for the flit a
    // buffer further ahead at the link after, and so on: the head's grant m links further on, whose buffers
    // sum to S < F, holds the tail here until G + (F - 1 - S) flit times + m credit loops. The link stays
    // held until every such grant is known (wormhole: a head blocked several hops on stalls the whole
    // worm), then frees at the latest of them.
    struct Hold {
        int link = -1;
        int parent = -1; // the hold of the link before it on the packet's path (-1: none)
        int parentBuffer = 0;
        int open = 0; // heads of the packet (visits) whose grant may still delay this link's tail
        std::int64_t k0 = 0;
        Cycle arrivalTail = 0;
        Cycle release = 0, releaseNext = 0; // from every grant so far; from the next hop's alone
        Cycle nextGrant = 0;                // the next hop's grant: it frees the last flits' slots
        double nextInv = 1;
    };

    // Arbitrates `link` no earlier than `at`: one calendar for the whole mesh, whose links due in a cycle
    // are granted in the edge phase (hw/sim/EdgePhase.h; far fewer kernel events than a process per switch).
    void wake(int link, Cycle at) { calendar_.schedule(std::max(at, now()), link); }
    void arbitrateDue();
    // A packet of `flits` crossed held link `link` (its first flit the link's flit k0, its tail by `tail`)
    // after the link of hold `parent`; returns the new hold, counted open in every hold it can delay.
    int newHold(int link, int parent, int flits, std::int64_t k0, Cycle tail);
    // The packet's head waiting behind hold `hold`'s link was granted onwards at `grant` (its slowest branch
    // `inv` cycles per flit): updates that hold and the ones before it, and frees those no longer open.
    void headGranted(int hold, int flits, Cycle grant, double inv);
    template <class Fn> void forHoldsInReach(int hold, int flits, Fn&& fn);
    void addLink(Link l);
    int newVisit(Visit v);
    void freeVisit(int v);
    void freePacket(int p);
    void deliver(int packet, int dest, Cycle head, Cycle tail);
    int switchAt(int row, int col) const { return row * o_.cols + col; }
    void route(int fromSwitch, int toSwitch, bool columnFirst, std::vector<int>& links) const;
    double rateFor(int latency, int buffer, bool ejection) const;
    int flitsPerPart(int flow, int flits) const;

    MeshOptions o_;
    Calendar<int> calendar_;
    std::vector<int> due_;               // scratch of arbitrateDue()
    std::vector<std::uint64_t> dueMark_; // per link: the drain that last listed it
    std::uint64_t drains_ = 0;
    std::vector<std::unique_ptr<RdnSwitch>> switches_;
    std::vector<Link> links_;
    std::vector<int> meshLinks_; // per switch x 4 directions, -1 at the edge
    struct EndpointInfo {
        std::string name;
        int sw = -1, port = -1, injection = -1, ejection = -1;
        int row = 0, col = 0;
    };
    std::vector<EndpointInfo> endpoints_;
    std::vector<Flow> flows_;
    // Per endpoint: visits waiting for its injection link, in order of the cycle they may leave
    // (RdnSwitch::enqueue).
    std::vector<std::deque<int>> sourceQueue_;
    // Sends reach their source queues in the update phase, ordered by (ready cycle, flow, order of sending):
    // the processes that send in one evaluation phase run in the kernel's order, which must not decide whose
    // packet goes first.
    class InjectionCommit : public sc_core::sc_prim_channel {
      public:
        explicit InjectionCommit(RdnMesh& m) : sc_core::sc_prim_channel("inject"), mesh_(m) {}
        void request() { request_update(); }

      protected:
        void update() override { mesh_.commitInjections(); }

      private:
        RdnMesh& mesh_;
    };
    struct Injection {
        Cycle req;
        int flow;
        std::uint64_t seq;
        int visit;
    };
    void commitInjections();
    std::vector<Injection> injections_;
    std::uint64_t injectionSeq_ = 0;
    InjectionCommit commit_;
    std::vector<Message> messages_;
    std::vector<int> freeMessages_;
    std::vector<Packet> packets_;
    std::vector<int> freePackets_;
    std::vector<Visit> visits_;
    std::vector<int> freeVisits_;
    std::vector<Hold> holds_;
    std::vector<int> freeHolds_;
    std::int64_t grants_ = 0, flitsDelivered_ = 0;
};

} // namespace steprdu::hw
