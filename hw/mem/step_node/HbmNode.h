#pragma once
// The published STeP simulator's HBM node (step-perf HBMContext): off-chip operators send 64-byte requests
// in packets of `par_dispatch`; each cycle the front end accepts at most one visible packet per client and
// spreads its requests over the channels; every channel accepts one request per init interval and answers
// after start-up + latency cycles. A tile completes when its last response is back.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <vector>

#include "hw/mem/step_node/RequestWindow.h"

namespace steprdu::hw::mem {

struct HbmParams {
    int requestBytes = 64;
    int channels = 32;
    int latency = 2;
    int initInterval = 2;
    int startup = 14;
    // step_compat quirks: start-up charged on every request (not only a channel's first) and the triangular
    // channel offset (off += i for the i-th request of a cycle) instead of round robin.
    bool startupEveryRequest = true;
    bool triangularOffset = true;
    // Skip repeating stretches of cycles whole periods at a time (same results; off only to check that).
    bool fastForward = true;
};

struct HbmStats {
    std::int64_t requests = 0;
    std::int64_t tiles = 0;
    std::int64_t lastDelivery = 0;
    std::int64_t skippedCycles = 0; // front-end cycles fast-forwarded as repeats of a period
};

class HbmNode {
  public:
    static constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
    using Completion = std::function<void(std::int64_t deliveredAt)>;

    explicit HbmNode(const HbmParams& p);
    // One tile of `requests` requests from `client`: packet g (of `par` requests) becomes visible to the
    // front end at issueTime + g + 1 (one channel hop). `done` is called with the cycle at which the last
    // response reaches the client.
    void submit(int client, bool write, std::int64_t issueTime, std::int64_t requests, int par,
                Completion done);
    // Caps the requests `client` may have in flight; 0 = no cap, as in the published node. A request's slot
    // frees `returnLatency` cycles after its delivery (the client's own round trip beyond the node); a capped
    // client's packet waits at the front end.
    void setWindow(int client, int requests, int returnLatency);
    // The next cycle at which the front end has a packet to accept (kNever if none).
    std::int64_t nextCycle() const;
    // Processes front-end cycles up to and including `upTo`, but stops after a cycle in which a tile
    // completed, so that its client can issue again before later cycles are processed.
    void advanceTo(std::int64_t upTo);
    const HbmStats& stats() const { return stats_; }

  private:
    // A tile's packets in a client's queue, made one at a time as they reach the front: packet g is
    // stamped issue + g and carries par requests (the last one the rest).
    struct TileRun {
        std::int64_t issue = 0, left = 0, packet = 0; // left: requests not yet sent
        int par = 1, tile = 0;
        std::int64_t visible() const { return issue + std::max<std::int64_t>(packet, 1); }
        int count() const { return static_cast<int>(std::min<std::int64_t>(par, left)); }
    };
    // A client's tiles in order; the front one is kept apart so that the per-cycle scan of the clients reads
    // one flat array.
    struct ClientQueue {
        TileRun front;
        std::deque<TileRun> rest;
        bool busy = false;
        bool empty() const { return !busy; }
        void push(const TileRun& r);
        void pop();
    };
    struct Tile {
        std::int64_t remaining = 0, lastDelivery = 0;
        std::int64_t periodLast = 0; // its last delivery since the period's snapshot
        Completion done;
    };
    // A snapshot of the channels taken at the start of a steady cycle: every active client served one full
    // packet a cycle, none windowed. When the channels come back to it, relative to the clock or shifted
    // uniformly while no request waited for its arrival, the cycles since repeat until a tile's last packet
    // or the caller's horizon, and are skipped whole periods at a time: a tile's packets in a long stream
    // cost a few periods instead of one step each.
    struct Period {
        bool valid = false;
        std::int64_t cycle = 0;
        int offset = 0;
        bool arrivalBound = false; // a request in the period started at its arrival, not at its channel
        std::vector<std::int64_t> channelFree;
    };
    // True if every active client's next packet is visible at cycle_ and full, and none has a window.
    bool steady() const;
    // Takes the snapshot, or skips whole periods if the channels are back at it.
    void followPeriod(std::int64_t upTo);
    struct Window;
    // Serves a packet of `count` requests of `tile` arriving at `arrive`, the request after `inCycle`
    // others this cycle; `window`: its client's, when it has a cap.
    void servePacket(int count, std::int64_t arrive, int tile, Window* window, int& inCycle, bool& completed);
    // Frees the window slots of `client`'s requests whose responses are back by `cycle`.
    void release(int client, std::int64_t cycle);
    bool windowAllows(int client, int count) const;

    struct Window {
        int returnLatency = 0;
        RequestWindow slots; // the cycles its slots in use come back
    };
    std::vector<Window> windows_;

    HbmParams p_;
    std::vector<ClientQueue> clients_; // readers (even ids) and writers (odd ids)
    std::vector<int> active_;          // clients with packets, ordered: readers, then writers
    std::vector<std::int64_t> channelFree_;
    std::vector<bool> channelStarted_;
    std::vector<Tile> tiles_;
    std::vector<int> freeTiles_;
    std::int64_t cycle_ = 0;
    int offset_ = 0, cycleOffset_ = 0;
    Period period_;
    // nextCycle()'s answer until a submit, a window change or a processed cycle.
    mutable std::int64_t next_ = kNever;
    mutable bool nextValid_ = false;
    HbmStats stats_;
};

} // namespace steprdu::hw::mem
