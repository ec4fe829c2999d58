#include "hw/mem/dram/DramController.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace steprdu::hw::mem {

void ControllerStats::add(const ControllerStats& o) {
    reads += o.reads;
    writes += o.writes;
    rowHits += o.rowHits;
    rowMisses += o.rowMisses;
    rowConflicts += o.rowConflicts;
    refreshes += o.refreshes;
    commands += o.commands;
    readLatencySum += o.readLatencySum;
    if (readLatencyHistogram.size() < o.readLatencyHistogram.size())
        readLatencyHistogram.resize(o.readLatencyHistogram.size(), 0);
    for (std::size_t l = 0; l < o.readLatencyHistogram.size(); ++l)
        readLatencyHistogram[l] += o.readLatencyHistogram[l];
    readQueueIntegral += o.readQueueIntegral;
    writeQueueIntegral += o.writeQueueIntegral;
}

DramController::DramController(const DramSpec& spec, const ControllerOptions& o, int channel,
                               TransactionSink& sink, DramChecker* checker)
    : spec_(spec), o_(o), index_(channel), sink_(sink), checker_(checker), channel_(spec),
      slots_(o.readQueue + o.writeQueue), waiting_(slots_.size()), banks_(spec.ranks * spec.banksPerRank()),
      plans_(2 * banks_.size()), listedAt_(plans_.size(), -1), nextRefresh_(spec.ranks, spec.t.nREFI),
      refreshAt_(spec.t.nREFI), due_(spec.ranks, 0),
      // As counts: above high x queue means above its floor, below low x queue below its ceiling.
      writeHigh_(static_cast<int>(std::floor(o.writeHigh * o.writeQueue))),
      writeLow_(static_cast<int>(std::ceil(o.writeLow * o.writeQueue))) {
    if (slots_.size() > static_cast<std::size_t>(std::numeric_limits<std::int16_t>::max()))
        throw std::length_error("DRAM controller: read and write queues of more than 32767 entries");
    for (int i = static_cast<int>(slots_.size()) - 1; i >= 0; --i)
        freeSlots_.push_back(i);
    extra_.reserve(banks_.size() + spec.ranks);
    comeDue_.resize(banks_.size());
    for (int b = 0; b < static_cast<int>(banks_.size()); ++b) {
        Bank& bank = banks_[b];
        bank.rank = b / spec.banksPerRank();
        bank.group = (b / spec.banks) % spec.bankGroups;
        bank.bank = b % spec.banks;
        for (int dir = 0; dir < 2; ++dir) {
            plan(b, dir).bank = b;
            plan(b, dir).rank = bank.rank;
            plan(b, dir).dir = static_cast<std::int8_t>(dir);
        }
    }
}

namespace {
// Input buffer order: by ready cycle, then submission.
bool before(const Transaction& a, const Transaction& b) {
    return a.ready < b.ready || (a.ready == b.ready && a.seq < b.seq);
}
} // namespace

void DramController::InputBuffer::insert(const Transaction& x) {
    if (empty() || before(back(), x)) {
        v.push_back(x);
        return;
    }
    // The rare one out of order walks back a few places.
    auto it = v.end();
    const auto first = v.begin() + static_cast<std::ptrdiff_t>(head);
    while (it != first && before(x, *std::prev(it)))
        --it;
    v.insert(it, x);
}

void DramController::submit(const Transaction& x) {
    // Only the buffer's front decides when the channel next has something to do.
    if (backlog_.empty() || before(x, backlog_.front())) next_ = std::min(next_, std::max(now_, x.ready));
    backlog_.insert(x);
}

std::int64_t DramController::nextEvent() const {
    return idle() ? kNeverCycle : next_;
}

void DramController::account(std::int64_t t) {
    if (t <= accounted_) return;
    stats_.readQueueIntegral += count_[0] * (t - accounted_);
    stats_.writeQueueIntegral += count_[1] * (t - accounted_);
    accounted_ = t;
}

// An idle channel stops where it is; its refreshes are caught up when the next transaction comes. Between
// the cycles at which a command may be ready (bound_, a lower bound kept up to date as transactions enter and
// commands issue) the channel only admits transactions.
void DramController::advanceTo(std::int64_t h) {
    while (now_ < h && !idle()) {
        if (hasRoomForNext() && backlog_.front().ready <= now_) bound_ = std::min(bound_, admit(now_));
        if (bound_ <= now_) bound_ = decide(now_);
        std::int64_t next = bound_;
        if (hasRoomForNext()) next = std::min(next, std::max(now_ + 1, backlog_.front().ready));
        next_ = next;
        now_ = std::min(next, h);
    }
}

DramController::Candidate* DramController::planOf(int b, int dir) {
    using C = DramCommand;
    Bank& bank = banks_[b];
    if (bank.head[dir] < 0 || due_[bank.rank]) return nullptr;
    Candidate& c = plan(b, dir);
    if (c.planned) return &c;
    c.slot = -1;
    c.row = -1;
    c.conflict = false;
    const Waiting& oldest = waiting_[bank.head[dir]];
    const int open = channel_.openRow(b);
    if (open >= 0) {
        int hit = bank.head[dir];
        while (hit >= 0 && waiting_[hit].row != open)
            hit = waiting_[hit].next;
        if (hit >= 0) {
            c.cmd = dir ? C::Wr : C::Rd;
            c.slot = hit;
            c.row = open;
            c.klass = 1;
            c.seq = waiting_[hit].seq;
        } else {
            c.cmd = C::Pre;
            c.klass = 2;
            c.seq = oldest.seq;
            c.conflict = true;
        }
    } else {
        c.cmd = C::Act;
        c.row = oldest.row;
        c.klass = 2;
        c.seq = oldest.seq;
    }
    c.at = channel_.earliest(c.cmd, b);
    c.planned = true;
    mirror(c);
    return &c;
}

bool DramController::closing(int b, Candidate& c) const {
    const Bank& bank = banks_[b];
    const int open = channel_.openRow(b);
    if (!bank.closeAfter || due_[bank.rank] || open < 0 || anyWants(b, open)) return false;
    c = Candidate{};
    c.bank = b;
    c.rank = bank.rank;
    c.cmd = DramCommand::Pre;
    c.klass = 2;
    c.at = channel_.earliest(DramCommand::Pre, b);
    return true;
}

std::int64_t DramController::admit(std::int64_t t) {
    std::int64_t bound = kNeverCycle;
    bool admitted = false;
    const int mode = writeMode_ ? 1 : 0;
    while (!backlog_.empty() && backlog_.front().ready <= t) {
        const int dir = backlog_.front().write ? 1 : 0;
        if (count_[dir] >= (dir ? o_.writeQueue : o_.readQueue)) break; // the buffer waits in order
        if (!admitted) account(t);
        admitted = true;
        const int slot = freeSlots_.back();
        freeSlots_.pop_back();
        Transaction& x = slots_[slot];
        x = backlog_.front();
        x.arrival = t;
        backlog_.pop_front();
        if (backlog_.empty()) sink_.inputDrained(index_);
        if (!waits(x.bank, dir)) list(x.bank, dir);
        enlist(x.bank, dir, slot);
        // A younger transaction changes the bank's plan only if it turns a conflict into a hit.
        Candidate& p = plan(x.bank, dir);
        if (p.planned && p.cmd == DramCommand::Pre && x.row == channel_.openRow(x.bank)) {
            p.planned = false;
            mirror(p);
        }
        ++count_[dir];
        ++queued_;
        if (dir == 1 && o_.postedWrites) sink_.writeQueued(index_, x, t);
        if (dir != mode) continue;
        const Candidate* c = planOf(x.bank, mode);
        if (c) bound = std::min(bound, std::max(t, c->at));
    }
    // A transaction of the other direction may switch the mode, and with it the candidates.
    if (admitted && wantsWriteMode() != writeMode_) bound = t;
    return bound;
}

std::int64_t DramController::decide(std::int64_t t) {
    using C = DramCommand;
    writeMode_ = wantsWriteMode();
    const int dir = writeMode_ ? 1 : 0;
    const int perRank = spec_.banksPerRank();
    const Candidate* best = nullptr;
    std::int64_t next = kNeverCycle; // the earliest cycle of a candidate not ready now
    readyNow_.clear();
    // A candidate's cycle is a lower bound (commands only push cycles later): refreshed when it has come.
    auto offer = [&](Candidate & c) __attribute__((always_inline)) {
        if (c.at <= t) {
            c.at = channel_.earliest(c.cmd, c.bank);
            mirror(c);
        }
        if (c.at > t) {
            next = std::min(next, c.at);
            return;
        }
        readyNow_.push_back(&c);
        if (!best || c.klass < best->klass || (c.klass == best->klass && c.seq < best->seq)) best = &c;
    };

    extra_.clear(); // refresh and closed-row candidates; reserved, so pointers into it stay valid
    // Until the first rank's refresh is due, no rank is (due_ is cleared as each REF issues).
    const bool refreshDue = o_.refresh && t >= refreshAt_;
    if (o_.refresh && !refreshDue) next = refreshAt_;
    for (int r = 0; refreshDue && r < spec_.ranks; ++r) {
        due_[r] = t >= nextRefresh_[r];
        if (!due_[r]) {
            next = std::min(next, nextRefresh_[r]); // then the rank's candidates change
            continue;
        }
        Candidate c;
        c.rank = r;
        c.klass = 0;
        c.seq = r;
        if (channel_.openBanks(r) == 0) {
            c.cmd = C::Ref;
            c.bank = r * perRank;
            c.at = t;
            extra_.push_back(c);
            continue;
        }
        for (int b = r * perRank; b < (r + 1) * perRank; ++b)
            if (channel_.openRow(b) >= 0) {
                c.cmd = C::Pre;
                c.bank = b;
                c.at = t;
                extra_.push_back(c);
            }
    }
    for (int b : closing_) {
        Candidate c;
        if (closing(b, c)) extra_.push_back(c);
    }
    for (auto& c : extra_)
        offer(c);
    const auto& listed = active_[dir];
    auto offerPlan = [&](int b) {
        Candidate& c = plan(b, dir);
        offer(c.planned ? c : *planOf(b, dir));
    };
    if (refreshDue) {
        for (int b : listed)
            if (!due_[plan(b, dir).rank]) offerPlan(b); // else its rank waits for a refresh
    } else {
        // No rank waits for a refresh before refreshAt_. The banks whose plan's cycle has not come only bound
        // the next decision; the rest are offered, in their order in the list.
        const auto& at = activeAt_[dir];
        int n = 0;
        for (int i = 0; i < static_cast<int>(listed.size()); ++i) {
            const bool come = at[i] <= t;
            comeDue_[n] = i;
            n += come;
            next = std::min(next, come ? kNeverCycle : at[i]);
        }
        // Their plans and bank states are in no cache after the other channels' visits: start every load
        // before the first is needed, so that they overlap.
        for (int k = 0; k < n; ++k) {
            const int b = listed[comeDue_[k]];
            __builtin_prefetch(&plan(b, dir));
            channel_.prefetch(b);
        }
        for (int k = 0; k < n; ++k)
            offerPlan(listed[comeDue_[k]]);
    }

    if (!best) return next;
    const int chosenBank = best->bank;
    const bool refreshed = best->klass == 0;
    issue(*best, t);
    // The other candidates keep their cycles as lower bounds (the command may have pushed them later): the
    // next decision comes no later than a command is ready, and one that comes early only looks again. A
    // refresh's consequences and a change of direction are looked at the next cycle. The other commands
    // that were ready get their cycles anew (the one just issued has pushed them past t): a decision before
    // the least of them would issue nothing.
    if (refreshed || wantsWriteMode() != writeMode_) return t + 1;
    for (Candidate* c : readyNow_) {
        if (c == best) continue;
        if (c->bank == chosenBank) return t + 1; // its plan may have changed with the command
        c->at = channel_.earliest(c->cmd, c->bank);
        mirror(*c);
        next = std::min(next, c->at);
    }
    if (const Candidate* c = planOf(chosenBank, dir)) next = std::min(next, c->at);
    if (o_.closedRow) {
        Candidate close;
        if (closing(chosenBank, close)) next = std::min(next, close.at);
    }
    return std::max(next, t + 1);
}

bool DramController::anyWants(int bank, int row) const {
    for (int dir = 0; dir < 2; ++dir)
        for (int s = banks_[bank].head[dir]; s >= 0; s = waiting_[s].next)
            if (waiting_[s].row == row) return true;
    return false;
}

void DramController::enlist(int bank, int dir, int slot) {
    Bank& b = banks_[bank];
    const Transaction& x = slots_[slot];
    waiting_[slot] = {x.seq, x.row, -1, b.tail[dir]};
    if (b.tail[dir] >= 0)
        waiting_[b.tail[dir]].next = static_cast<std::int16_t>(slot);
    else
        b.head[dir] = static_cast<std::int16_t>(slot);
    b.tail[dir] = static_cast<std::int16_t>(slot);
}

void DramController::delist(int bank, int dir, int slot) {
    Bank& b = banks_[bank];
    const Waiting& w = waiting_[slot];
    (w.prev >= 0 ? waiting_[w.prev].next : b.head[dir]) = w.next;
    (w.next >= 0 ? waiting_[w.next].prev : b.tail[dir]) = w.prev;
}

void DramController::list(int bank, int dir) {
    const Candidate& c = plan(bank, dir);
    listedAt_[2 * bank + dir] = static_cast<int>(active_[dir].size());
    active_[dir].push_back(bank);
    activeAt_[dir].push_back(c.planned ? c.at : kReplan);
}

void DramController::mirror(const Candidate& c) {
    if (c.dir < 0) return;
    const int place = listedAt_[2 * c.bank + c.dir];
    if (place >= 0) activeAt_[c.dir][place] = c.planned ? c.at : kReplan;
}

void DramController::unlist(int bank, int dir) {
    if (dir == 2) {
        closing_.erase(std::find(closing_.begin(), closing_.end(), bank));
        return;
    }
    // The list keeps its order (decide offers in it): the banks after this one move up a place.
    auto& v = active_[dir];
    const int at = listedAt_[2 * bank + dir];
    v.erase(v.begin() + at);
    activeAt_[dir].erase(activeAt_[dir].begin() + at);
    for (int i = at; i < static_cast<int>(v.size()); ++i)
        listedAt_[2 * v[i] + dir] = i;
    listedAt_[2 * bank + dir] = -1;
}

void DramController::issue(const Candidate& c, std::int64_t t) {
    using C = DramCommand;
    Bank& bank = banks_[c.bank];
    if (c.cmd != C::Ref)
        for (int dir = 0; dir < 2; ++dir) {
            plan(c.bank, dir).planned = false;
            mirror(plan(c.bank, dir));
        }
    const int row = c.cmd == C::Act ? c.row : c.slot >= 0 ? slots_[c.slot].row : -1;
    if (checker_) checker_->check(c.cmd, c.rank, bank.group, bank.bank, row, t);
    channel_.issue(c.cmd, c.bank, row, t);
    ++stats_.commands;
    switch (c.cmd) {
    case C::Act:
        bank.firstAccess = true;
        bank.opensConflict = bank.conflictPre;
        bank.conflictPre = false;
        break;
    case C::Pre:
        bank.conflictPre = c.conflict;
        if (bank.closeAfter) {
            bank.closeAfter = false;
            unlist(c.bank, 2);
        }
        break;
    case C::Ref:
        nextRefresh_[c.rank] += spec_.t.nREFI;
        due_[c.rank] = 0;
        refreshAt_ = *std::min_element(nextRefresh_.begin(), nextRefresh_.end());
        ++stats_.refreshes;
        break;
    case C::Rd:
    case C::Wr: {
        account(t);
        const int dir = c.cmd == C::Wr ? 1 : 0;
        const Transaction& x = slots_[c.slot]; // its slot is reused only by the next admission
        delist(c.bank, dir, c.slot);
        if (!waits(c.bank, dir)) unlist(c.bank, dir);
        freeSlots_.push_back(c.slot);
        --count_[dir];
        --queued_;
        if (!bank.firstAccess)
            ++stats_.rowHits;
        else
            ++(bank.opensConflict ? stats_.rowConflicts : stats_.rowMisses);
        bank.firstAccess = false;
        const std::int64_t data = t + (dir ? spec_.t.nCWL : spec_.t.nCL) + spec_.t.nBL;
        if (dir) {
            ++stats_.writes;
        } else {
            ++stats_.reads;
            const std::int64_t latency = data - x.arrival;
            stats_.readLatencySum += latency;
            if (o_.latencyHistogram) {
                if (latency >= static_cast<std::int64_t>(stats_.readLatencyHistogram.size()))
                    stats_.readLatencyHistogram.resize(latency + 1, 0);
                ++stats_.readLatencyHistogram[latency];
            }
        }
        if (o_.closedRow && !bank.closeAfter && !anyWants(c.bank, x.row)) {
            bank.closeAfter = true;
            closing_.push_back(c.bank);
        }
        sink_.transactionDone(index_, x, data);
        break;
    }
    }
}

} // namespace steprdu::hw::mem
