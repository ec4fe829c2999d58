#pragma once
// One channel's memory controller. Transactions wait in the channel's input buffer until the read or the
// write queue has room, then FR-FCFS picks one command per cycle: ready row hits first, oldest first, then
// the oldest ready ACT or PRE. A bank's row is closed only when no queued transaction of the current
// direction wants it (open-row policy), or as soon as none wants it at all (closed-row policy). Writes are
// drained between high and low watermarks; every rank (pseudo-channel) is refreshed every tREFI, its banks
// closed first and its activates held back meanwhile.
//
// The controller keeps no clock of its own: it decides cycles in order when the memory system asks it to
// (advanceTo) and says when it next has something to do. A stretch without transactions is decided in one
// step when the next one arrives; the refreshes due in it are issued then, at their cycles, so the result is
// the same as deciding every cycle.
#include <cstdint>
#include <limits>
#include <vector>

#include "hw/mem/dram/DramChannel.h"
#include "hw/mem/dram/DramChecker.h"

namespace steprdu::hw::mem {

constexpr std::int64_t kNeverCycle = std::numeric_limits<std::int64_t>::max();

struct ControllerOptions {
    int readQueue = 32, writeQueue = 32;
    double writeHigh = 0.8, writeLow = 0.2; // write drain watermarks, fractions of the write queue
    bool closedRow = false;
    bool refresh = true;
    // A write is done for its client once its queue takes it (its data then waits there, read or not, until
    // the write drain); otherwise once its data is written.
    bool postedWrites = true;
    // Count reads by latency (memtrace's percentiles); the chip reports the mean alone, and a histogram per
    // channel, written at a random place on every read, costs the chip's runs a cache miss each.
    bool latencyHistogram = false;
};

// One column access of the preset's transaction size.
struct Transaction {
    std::int32_t request = -1; // the memory system's request it belongs to
    bool write = false;
    std::int32_t bank = 0; // flat within the channel (DramSpec::flatBank)
    std::int32_t row = 0;
    std::int64_t ready = 0;   // first cycle it may enter a queue
    std::int64_t arrival = 0; // cycle it entered its queue
    std::int64_t seq = 0;     // submission order, for "oldest first"
};

struct ControllerStats {
    std::int64_t reads = 0, writes = 0, rowHits = 0, rowMisses = 0, rowConflicts = 0;
    std::int64_t refreshes = 0, commands = 0;
    std::int64_t readLatencySum = 0;
    std::vector<std::int64_t> readLatencyHistogram;             // count by latency in cycles, if asked for
    std::int64_t readQueueIntegral = 0, writeQueueIntegral = 0; // queue length x cycles

    // Adds another channel's counts (for a tier's totals).
    void add(const ControllerStats& o);
};

// Told when a transaction's last data beat has moved (read data returned, write data written), when a posted
// write entered its queue, and when a channel's input buffer has run empty (the sink may then submit the
// transactions it holds back).
class TransactionSink {
  public:
    virtual ~TransactionSink() = default;
    virtual void transactionDone(int channel, const Transaction& x, std::int64_t dataCycle) = 0;
    // A write entered its channel's write queue at `cycle` (told only with posted writes).
    virtual void writeQueued(int channel, const Transaction& x, std::int64_t cycle) = 0;
    virtual void inputDrained(int channel) = 0;
};

class DramController {
  public:
    DramController(const DramSpec& spec, const ControllerOptions& o, int channel, TransactionSink& sink,
                   DramChecker* checker);

    // A transaction for this channel; it may enter a queue from cycle x.ready, which must not be before the
    // first undecided cycle.
    void submit(const Transaction& x);
    // Decides every cycle before `h`.
    void advanceTo(std::int64_t h);
    // The first cycle not yet decided.
    std::int64_t decidedUntil() const { return now_; }
    // The next cycle at which a command may issue or a transaction enter; kNeverCycle when the channel has no
    // transactions (refresh alone does not count: it is caught up later).
    std::int64_t nextEvent() const;
    bool idle() const { return queued_ == 0 && backlog_.empty(); }
    bool inputEmpty() const { return backlog_.empty(); }

    // Queue occupancy is integrated up to `t`.
    void account(std::int64_t t);
    const ControllerStats& stats() const { return stats_; }
    const DramChannel& channel() const { return channel_; }
    std::int64_t dataBusyCycles() const { return (stats_.reads + stats_.writes) * spec_.t.nBL; }

  private:
    struct Candidate {
        DramCommand cmd = DramCommand::Act;
        int bank = -1; // flat bank index; for REF any bank of the rank
        int rank = 0;
        int slot = -1; // column commands: the transaction
        int row = -1;  // ACT: the row to open
        int klass = 3; // 0 refresh, 1 row hit, 2 ACT/PRE
        std::int64_t seq = std::numeric_limits<std::int64_t>::max();
        std::int64_t at = kNeverCycle;
        bool conflict = false; // a PRE that closes a row a queued transaction does not want
        bool planned = false;  // a bank's plan: up to date (else planOf works it out again)
        std::int8_t dir = -1; // a bank's plan: the direction it serves; -1 for refresh and closing candidates
    };
    struct Bank {
        int rank = 0, group = 0, bank = 0;
        // Queued transactions, oldest first: reads, writes; lists through the slots' Waiting records.
        std::int16_t head[2] = {-1, -1}, tail[2] = {-1, -1};
        bool closeAfter = false;    // closed-row policy: close once possible
        bool conflictPre = false;   // the last PRE closed a row for a transaction that wanted another
        bool firstAccess = false;   // the next column access is the first since the ACT
        bool opensConflict = false; // that ACT followed a conflict PRE
    };

    // Moves transactions from the input buffer into the queues at `t`; returns the earliest cycle at which
    // one of them may have a command ready (kNeverCycle if none entered).
    std::int64_t admit(std::int64_t t);
    // The input buffer's front has room in its queue.
    bool hasRoomForNext() const {
        if (backlog_.empty()) return false;
        const bool write = backlog_.front().write;
        return count_[write ? 1 : 0] < (write ? o_.writeQueue : o_.readQueue);
    }
    // Ramulator's rule: enter write mode above the high watermark or when no read waits; leave it below the
    // low watermark once a read waits.
    bool wantsWriteMode() const {
        if (!writeMode_) return count_[1] > writeHigh_ || (count_[0] == 0 && count_[1] > 0);
        return !((count_[1] < writeLow_ && count_[0] > 0) || count_[1] == 0);
    }
    // The command bank `b` needs next for its queued transactions of direction `dir` (planned once per change
    // of the bank's queue or state; its cycle a lower bound); nullptr if it has none or its rank waits for a
    // refresh.
    Candidate* planOf(int b, int dir);
    // Closed-row policy: the PRE that closes `b`, if one is due.
    bool closing(int b, Candidate& c) const;
    // Issues the command FR-FCFS picks at `t`, if one is ready; returns a lower bound on the next cycle at
    // which a command may be ready (kNeverCycle if none).
    std::int64_t decide(std::int64_t t);
    void issue(const Candidate& c, std::int64_t t);
    bool anyWants(int bank, int row) const;
    void unlist(int bank, int dir);

    const DramSpec& spec_;
    ControllerOptions o_;
    int index_;
    TransactionSink& sink_;
    DramChecker* checker_;
    DramChannel channel_;
    // The channel's input buffer, by (ready, seq): a vector read from `head`, so that streaming transactions
    // through it allocates nothing once it has grown.
    struct InputBuffer {
        std::vector<Transaction> v;
        std::size_t head = 0;
        bool empty() const { return head == v.size(); }
        const Transaction& front() const { return v[head]; }
        const Transaction& back() const { return v.back(); }
        void insert(const Transaction& x);
        void pop_front() {
            if (++head == v.size()) {
                v.clear();
                head = 0;
            } else if (head >= 1024 && 2 * head >= v.size()) { // never drained: drop the read part
                v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(head));
                head = 0;
            }
        }
    };
    InputBuffer backlog_;
    std::vector<Transaction> slots_;
    // Per slot, its place in its bank's list and what planning looks at: the lists of all banks live in one
    // small array (a vector per bank spread them over the heap, a cache miss per admission).
    struct Waiting {
        std::int64_t seq;
        std::int32_t row;
        std::int16_t next, prev;
    };
    std::vector<Waiting> waiting_;
    bool waits(int bank, int dir) const { return banks_[bank].head[dir] >= 0; }
    void enlist(int bank, int dir, int slot);
    void delist(int bank, int dir, int slot);
    std::vector<int> freeSlots_;
    std::vector<Bank> banks_;
    // Per bank and direction (bank * 2 + dir): the command its queued transactions need next, without its
    // cycle; it changes only when the bank's queue or state does. Apart from the banks, so that decide's scan
    // over the active banks reads one candidate each and nothing else.
    std::vector<Candidate> plans_;
    Candidate& plan(int b, int dir) { return plans_[2 * b + dir]; }
    std::vector<int> active_[2]; // banks with waiting reads, writes
    // decide's view of active_: per listed bank, its plan's cycle, or kReplan when it has no plan. decide
    // scans these and looks at a plan only when its cycle has come, which is a few banks in a dozen.
    static constexpr std::int64_t kReplan = std::numeric_limits<std::int64_t>::min();
    std::vector<std::int64_t> activeAt_[2];
    std::vector<int> listedAt_; // per plan (bank * 2 + dir): its place in active_[dir], or -1
    std::vector<int> comeDue_;  // decide's scratch: places in active_[dir] whose cycle has come
    void list(int bank, int dir);
    // Copies a bank's plan's cycle into activeAt_ after it changes (nothing for other candidates).
    void mirror(const Candidate& c);
    std::vector<int> closing_;         // banks with closeAfter
    std::vector<Candidate> extra_;     // decide's refresh and closing candidates
    std::vector<Candidate*> readyNow_; // decide's candidates ready at its cycle
    int count_[2] = {0, 0};            // queued reads, writes
    int queued_ = 0;
    bool writeMode_ = false;
    std::vector<std::int64_t> nextRefresh_;
    std::int64_t refreshAt_; // the earliest of nextRefresh_
    std::vector<char> due_;
    int writeHigh_, writeLow_; // write drain watermarks in queued writes
    std::int64_t now_ = 0, next_ = kNeverCycle, bound_ = 0, accounted_ = 0;
    ControllerStats stats_;
};

} // namespace steprdu::hw::mem
