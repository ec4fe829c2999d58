#pragma once
// One STeP operator running on the unit it is placed on: a SystemC module (named after the operator, under
// its unit: chip.pcu_r3c7.gate) whose SC_THREAD runs the operator's unchanged stream semantics through this
// OpIO. Reads and writes block on the TokenChannels; work is timed by the host unit; the time spent waiting
// is counted by cause.
#include <deque>
#include <vector>

#include <nlohmann/json.hpp>
#include <systemc>

#include "hw/fabric/TokenChannel.h"
#include "hw/units/Unit.h"
#include "step_ops/Operator.h"
#include "step_ops/TensorStore.h"

namespace steprdu::hw {

class OperatorProcess : public sc_core::sc_module, public step::OpIO {
  public:
    SC_HAS_PROCESS(OperatorProcess);
    // `units`: physical units of the operator's virtual unit (PCUs of its compute group, PMUs of its
    // buffer); `timingElemBytes`: bytes the fabric moves per f32 element (0 = native).
    // `index`: the operator's index in its graph, which orders its requests among others of the same cycle.
    OperatorProcess(sc_core::sc_module_name name, const step::Operator& op, int index, Unit& host, int units,
                    step::TensorStore& store, bool functional, int timingElemBytes);

    void addInput(TokenChannel* c) { in_.push_back(c); }
    void addOutput(TokenChannel* c) { out_.push_back(c); }
    const step::Operator& op() const { return op_; }
    int index() const { return index_; }
    Unit& host() const { return host_; }
    int units() const { return units_; }
    // The units of the operator's virtual unit besides its host (the rest of a compute group).
    void setGroup(std::vector<Unit*> others) { group_ = std::move(others); }
    const std::vector<Unit*>& group() const { return group_; }
    // Set when another operator's work takes turns with this one's on the same PCU (pnr `shrink`).
    void setTimeShared(bool s) { timeShared_ = s; }
    bool timeShared() const { return timeShared_; }
    // Bytes a token occupies on the fabric.
    std::int64_t fabricBytes(const step::Token& t) const;
    std::int64_t fabricBytes(std::int64_t nativeBytes) const;

    // OpIO
    using OpIO::peek;
    const step::Token& peek(int in, int ahead) override;
    step::Token pop(int in) override;
    void push(int out, step::Token t) override;
    void awaitCapacity(int out) override;
    int firstAvailable(const std::vector<int>& ins) override;
    void work(const step::Work& w) override;
    void offChip(const step::OffChipAccess& a) override;
    bool functional() const override { return functional_; }
    step::TensorStore& memory() override { return store_; }

    // For AGCUs: the next data token this operator sends waits for off-chip ticket `t`; once the unit
    // calls ticketDone(t, at) it enters the fabric at `at`, and the tokens behind it follow in order.
    void holdNextDataFor(int ticket) { heldTicket_ = ticket; }
    void ticketDone(int ticket, Cycle at);
    // Adds time the operator's thread spent blocked on memory (AGCU window, tiles in flight).
    void addMemoryStall(Cycle c) { stallMemory_ += c; }

    bool finished() const { return finished_ && outbox_.empty(); }
    Cycle finishCycle() const { return finishCycle_; }
    // What the operator's thread is blocked on and since which cycle; "" while it works.
    std::string waitingFor() const {
        return waiting_.empty() ? "" : waiting_ + " since cycle " + std::to_string(waitingSince_);
    }
    void reportStats(StatsRegistry& stats) const;
    // Stall cycles of the operators in `stats` by cause: {"input": .., "output": .., "memory": ..}.
    static nlohmann::json stallCycles(const StatsRegistry& stats);

  private:
    struct Held {
        TokenChannel* channel;
        step::Token token;
        std::int64_t bytes;
        int ticket; // -1: waits only for the tokens ahead of it
    };
    void run();
    void flush();

    const step::Operator& op_;
    int index_;
    Unit& host_;
    int units_;
    std::vector<Unit*> group_;
    bool timeShared_ = false;
    step::TensorStore& store_;
    bool functional_;
    int timingElemBytes_;
    std::vector<TokenChannel*> in_, out_;
    Cycle readyAt_ = 0;   // the last work's result may enter the fabric
    Cycle inputTail_ = 0; // the last bytes of every element read so far have arrived
    // Elements read before their route knew when their last bytes arrive (the flit-level fabric), and the
    // earliest those can be.
    std::vector<std::pair<TokenChannel*, std::uint64_t>> unknownTails_;
    Cycle unknownTailsEarliest_ = 0;
    // Data elements looked at and not read yet (an operator may work on its inputs before it reads them).
    std::vector<std::pair<TokenChannel*, std::uint64_t>> peeked_;
    // Waits until the route has told the tails of every one of them, and of those looked at (the wait counts
    // as input stall if `countStall`).
    void learnInputTails(bool countStall = true);
    // The latest tail of the elements read or looked at, where not told yet the earliest it can be.
    Cycle inputTailBound();
    Cycle lastSend_ = 0;
    int heldTicket_ = -1;
    std::deque<Held> outbox_;
    std::vector<std::pair<int, Cycle>> doneTickets_;
    bool finished_ = false;
    Cycle finishCycle_ = 0;
    void waitFor(std::string what) {
        waiting_ = std::move(what);
        waitingSince_ = now();
    }

    std::string waiting_;
    Cycle waitingSince_ = 0;
    Cycle busy_ = 0, stallInput_ = 0, stallOutput_ = 0, stallMemory_ = 0;
    std::int64_t elements_ = 0;
    int track_ = -1; // its timeline track, once it has worked
};

} // namespace steprdu::hw
