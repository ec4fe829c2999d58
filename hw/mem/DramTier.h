#pragma once
// A DRAM tier (HBM or DDR) as a SystemC module behind the AGCUs: the MemorySystem engine (controllers,
// devices, front end) on its own clock, related to the fabric clock by an exact ratio.
//
// Requests reach the tier at least `lookahead` fabric cycles after they are submitted (the TLN crossing), so
// on each wake the engine may decide every DRAM cycle before now + lookahead: nothing still to come can
// change those. The fast path does exactly that and sleeps until the engine's next event needs deciding, so a
// run of bursts to an open row is scheduled in one step; a request's completion is reported as soon as its
// last column command has issued. The per-request path (memory.fast_path = false) is the straightforward
// SystemC model: every 64-byte transaction is a request of its own, the tier wakes for every command of every
// channel and delivers each transaction's data as its own event. Both give the same cycles (tests/mem), the
// fast path in a fraction of the time. Requests wait in a RequestOrder until no other can come for their
// issue cycle, and reach the engine in its canonical order.
#include <functional>
#include <queue>
#include <string>
#include <vector>

#include <systemc>

#include "hw/mem/OffChipMemory.h"
#include "hw/mem/RequestOrder.h"
#include "hw/mem/dram/MemorySystem.h"

namespace steprdu::hw::mem {

class DramTier : public sc_core::sc_module, public OffChipMemory {
  public:
    SC_HAS_PROCESS(DramTier);
    DramTier(sc_core::sc_module_name name, const DramSpec& spec, const MemorySystemOptions& o, bool fastPath,
             Cycle lookahead);

    void submit(int client, int source, bool write, Cycle issue, std::vector<ByteRange> ranges,
                int burstBytes, int par, std::function<void(Cycle)> done) override;
    void setWindow(int client, int bursts, int burstBytes, int returnLatency) override;
    // No request will be submitted before fabric cycle `t` (a trace that knows its future says so).
    void promise(Cycle t);
    double peakBytesPerCycle() const override;
    void reportStats(StatsRegistry& stats, Cycle elapsed) const override;
    std::int64_t events() const override;
    std::string path() const override { return name(); }

    const MemorySystem& engine() const { return engine_; }
    // Requests submitted and not yet reported done.
    int outstanding() const { return outstanding_; }
    // Wakes of the tier's processes, for comparing the two paths.
    std::int64_t wakes() const { return wakes_; }

  private:
    void process();
    void deliver();
    void schedule();
    std::int64_t horizon() const;
    // Requests issued before this fabric cycle are all submitted.
    Cycle submittedBefore() const;
    // Hands the engine the requests no other can precede.
    void handOver();
    void toEngine(PendingRequest& q);

    MemorySystem engine_;
    bool fast_;
    Cycle lookahead_, promised_ = 0;
    sc_core::sc_event wake_;
    RequestOrder waiting_;
    std::vector<std::function<void(Cycle)>> done_; // by ticket
    std::vector<int> freeTickets_;
    std::vector<std::int64_t> remaining_; // per-request path: transactions not yet delivered
    std::vector<int> ticketOf_;           // engine request id -> ticket
    // Per-request path: transaction deliveries (fabric cycle, ticket) not yet made.
    std::priority_queue<std::pair<Cycle, int>, std::vector<std::pair<Cycle, int>>, std::greater<>> arrivals_;
    sc_core::sc_event_queue delivered_;
    int outstanding_ = 0;
    std::int64_t wakes_ = 0;
};

} // namespace steprdu::hw::mem
