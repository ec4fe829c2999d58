#include "hw/mem/DramTier.h"

#include <algorithm>
#include <cmath>

#include "hw/sim/SimulationFailure.h"

namespace steprdu::hw::mem {

DramTier::DramTier(sc_core::sc_module_name name, const DramSpec& spec, const MemorySystemOptions& o,
                   bool fastPath, Cycle lookahead)
    : sc_core::sc_module(name), engine_(spec, o), fast_(fastPath), lookahead_(lookahead) {
    if (fast_) {
        engine_.onRequestDone([this](int id, std::int64_t data) {
            const int ticket = ticketOf_[id];
            auto done = std::move(done_[ticket]);
            freeTickets_.push_back(ticket);
            --outstanding_;
            done(engine_.clock().toFabric(data));
        });
    } else {
        engine_.onTransactionDone([this](int id, std::int64_t data) {
            const Cycle at = engine_.clock().toFabric(data);
            arrivals_.push({at, ticketOf_[id]});
            delivered_.notify(cycles(at - now()));
        });
    }
    SC_METHOD(process);
    sensitive << wake_;
    dont_initialize();
    SC_METHOD(deliver);
    sensitive << delivered_;
    dont_initialize();
}

void DramTier::submit(int client, int source, bool write, Cycle issue, std::vector<ByteRange> ranges,
                      int burstBytes, int par, std::function<void(Cycle)> done) {
    std::int64_t bytes = 0;
    for (const auto& r : ranges)
        bytes += r.bytes;
    if (bytes == 0) {
        done(issue);
        return;
    }
    waiting_.add({issue, client, source, 0, write, std::move(ranges), burstBytes, par, std::move(done)});
    schedule();
}

Cycle DramTier::submittedBefore() const {
    return promised_ == kNever ? kNever : std::max(now() + lookahead_, promised_);
}

void DramTier::handOver() {
    for (PendingRequest& r : waiting_.takeBefore(submittedBefore()))
        toEngine(r);
}

void DramTier::toEngine(PendingRequest& q) {
    const Cycle issue = q.issue;
    const auto& ranges = q.ranges;
    int ticket;
    if (!freeTickets_.empty()) {
        ticket = freeTickets_.back();
        freeTickets_.pop_back();
    } else {
        ticket = static_cast<int>(done_.size());
        done_.emplace_back();
        remaining_.push_back(0);
    }
    done_[ticket] = std::move(q.done);
    ++outstanding_;
    const double perCycle = double(q.par) * q.burstBytes / engine_.spec().transactionBytes;
    auto bind = [&](int id) {
        if (id >= static_cast<int>(ticketOf_.size())) ticketOf_.resize(id + 1);
        ticketOf_[id] = ticket;
    };
    if (fast_) {
        bind(engine_.submit(q.client, q.write, ranges, issue, perCycle));
    } else {
        // Every transaction is a request of its own, leaving the client when the whole request's dispatch
        // would send it: the same transactions, in the same order, at the same cycles.
        const std::int64_t tx = engine_.spec().transactionBytes;
        std::int64_t j = 0;
        for (const auto& r : ranges)
            for (std::uint64_t a = r.address / tx * tx; a < r.address + r.bytes; a += tx, ++j) {
                const Cycle leave = issue + (perCycle > 0 ? static_cast<Cycle>(std::floor(j / perCycle)) : 0);
                bind(engine_.submit(q.client, q.write, {{a, tx}}, leave, 0));
            }
        remaining_[ticket] = j;
    }
}

void DramTier::setWindow(int client, int bursts, int burstBytes, int returnLatency) {
    const int tx = engine_.spec().transactionBytes;
    engine_.setWindow(client, std::max(1, bursts * ((burstBytes + tx - 1) / tx)), returnLatency);
}

void DramTier::promise(Cycle t) {
    promised_ = std::max(promised_, t);
    schedule();
}

std::int64_t DramTier::events() const {
    std::int64_t n = 0;
    for (int c = 0; c < engine_.channels(); ++c)
        n += engine_.controller(c).stats().reads + engine_.controller(c).stats().writes;
    return n;
}

double DramTier::peakBytesPerCycle() const {
    const auto& c = engine_.clock();
    return engine_.spec().peakBytesPerCycle() * double(c.num) / double(c.den);
}

std::int64_t DramTier::horizon() const {
    const auto& c = engine_.clock();
    std::int64_t h = c.toDram(now() + lookahead_);
    if (promised_ == kNever) return kNeverCycle;
    return std::max(h, c.toDram(promised_));
}

// Wakes the tier once the engine's next event can be decided (when the horizon has passed it), or the
// first waiting request can be handed over.
void DramTier::schedule() {
    if (!waiting_.empty()) {
        if (waiting_.earliest() < submittedBefore()) {
            wake_.notify(sc_core::SC_ZERO_TIME);
            return;
        }
        notifyAt(wake_, std::max(now() + 1, waiting_.earliest() + 1 - lookahead_));
    }
    const std::int64_t e = engine_.nextEvent();
    if (e == kNeverCycle) return;
    if (e < horizon()) {
        wake_.notify(sc_core::SC_ZERO_TIME);
        return;
    }
    notifyAt(wake_, std::max(now() + 1, engine_.clock().fabricFloor(e) + 1 - lookahead_));
}

void DramTier::process() {
    ++wakes_;
    try {
        handOver();
        if (fast_) {
            engine_.advanceTo(horizon());
        } else {
            engine_.step(horizon());
        }
    } catch (...) {
        failSimulation(std::current_exception());
        return;
    }
    schedule();
}

void DramTier::deliver() {
    ++wakes_;
    while (!arrivals_.empty() && arrivals_.top().first <= now()) {
        const int ticket = arrivals_.top().second;
        arrivals_.pop();
        if (--remaining_[ticket] > 0) continue;
        auto done = std::move(done_[ticket]);
        freeTickets_.push_back(ticket);
        --outstanding_;
        done(now());
    }
}

void DramTier::reportStats(StatsRegistry& stats, Cycle elapsed) const {
    const DramSpec& s = engine_.spec();
    const std::int64_t cyclesDram = std::max<std::int64_t>(1, engine_.clock().toDram(elapsed));
    const std::string p = path();
    ControllerStats total;
    double busBusy = 0, open = 0;
    std::int64_t violations = 0;
    for (int c = 0; c < engine_.channels(); ++c) {
        const DramController& ctl = engine_.controller(c);
        const ControllerStats& st = ctl.stats();
        const std::string cp = p + ".ch" + std::to_string(c);
        const int buses = s.busPerRank ? s.ranks : 1;
        stats.add(cp, "read_transactions", double(st.reads));
        stats.add(cp, "write_transactions", double(st.writes));
        stats.add(cp, "row_hits", double(st.rowHits));
        stats.add(cp, "row_misses", double(st.rowMisses));
        stats.add(cp, "row_conflicts", double(st.rowConflicts));
        stats.add(cp, "data_bus_utilization", double(ctl.dataBusyCycles()) / (double(cyclesDram) * buses));
        stats.add(cp, "read_queue_mean", double(st.readQueueIntegral) / double(cyclesDram));
        stats.add(cp, "write_queue_mean", double(st.writeQueueIntegral) / double(cyclesDram));
        stats.add(cp, "refreshes", double(st.refreshes));
        total.add(st);
        busBusy += double(ctl.dataBusyCycles());
        open += double(ctl.channel().openCycles(cyclesDram));
        if (const DramChecker* k = engine_.checker(c)) violations += k->violationCount();
    }
    const double channels = engine_.channels();
    stats.add(p, "bytes_read", double(engine_.bytesRead()));
    stats.add(p, "bytes_written", double(engine_.bytesWritten()));
    stats.add(p, "read_transactions", double(total.reads));
    stats.add(p, "write_transactions", double(total.writes));
    stats.add(p, "row_hits", double(total.rowHits));
    stats.add(p, "row_misses", double(total.rowMisses));
    stats.add(p, "row_conflicts", double(total.rowConflicts));
    stats.add(p, "achieved_bytes_per_cycle",
              double(engine_.bytesRead() + engine_.bytesWritten()) / double(std::max<Cycle>(1, elapsed)));
    stats.add(p, "peak_bytes_per_cycle", peakBytesPerCycle());
    stats.add(p, "data_bus_utilization", busBusy / (double(cyclesDram) * s.dataBuses()));
    stats.add(p, "bank_open_fraction", open / (double(cyclesDram) * channels * s.ranks * s.banksPerRank()));
    stats.add(p, "read_latency_mean_ns",
              total.reads ? double(total.readLatencySum) / double(total.reads) * s.nsPerCycle() : 0.0);
    stats.add(p, "read_queue_mean", double(total.readQueueIntegral) / double(cyclesDram) / channels);
    stats.add(p, "write_queue_mean", double(total.writeQueueIntegral) / double(cyclesDram) / channels);
    stats.add(p, "refreshes", double(total.refreshes));
    stats.add(p, "refresh_fraction",
              double(total.refreshes) * s.t.nRFC / (double(cyclesDram) * channels * s.ranks));
    if (engine_.checker(0)) stats.add(p, "timing_violations", double(violations));
}

} // namespace steprdu::hw::mem
