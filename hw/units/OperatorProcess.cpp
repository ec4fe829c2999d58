#include "hw/units/OperatorProcess.h"

#include <algorithm>

#include <fmt/format.h>

#include "hw/fabric/StreamRoute.h"
#include "hw/sim/SimulationFailure.h"
#include "util/Timeline.h"

namespace steprdu::hw {

using step::Token;

OperatorProcess::OperatorProcess(sc_core::sc_module_name name, const step::Operator& op, int index,
                                 Unit& host, int units, step::TensorStore& store, bool functional,
                                 int timingElemBytes)
    : sc_core::sc_module(name), op_(op), index_(index), host_(host), units_(units), store_(store),
      functional_(functional), timingElemBytes_(timingElemBytes) {
    SC_THREAD(run);
    // Operator code is shallow; functional tiles live on the heap.
    set_stack_size(256 * 1024);
    host.host(this);
}

void OperatorProcess::run() {
    try {
        op_.run(*this);
        waitFor("its off-chip accesses to complete");
        host_.drain(*this);
    } catch (...) {
        failSimulation(std::current_exception());
        return;
    }
    waiting_.clear();
    finished_ = true;
    finishCycle_ = std::max(now(), lastSend_);
}

std::int64_t OperatorProcess::fabricBytes(std::int64_t nativeBytes) const {
    // The paper's runs time f32 tiles as bf16 (mock_bf16): the fabric moves half the bytes.
    return timingElemBytes_ ? nativeBytes * timingElemBytes_ / 4 : nativeBytes;
}

std::int64_t OperatorProcess::fabricBytes(const Token& t) const {
    if (!t.isData()) return 0;
    if (auto tile = std::get_if<step::Tile>(&t.value.v)) {
        std::int64_t eb = step::elemBytes(tile->elem);
        if (timingElemBytes_ && tile->elem == step::ElemType::F32) eb = timingElemBytes_;
        return tile->rows * tile->cols * eb;
    }
    // Selectors, scalars and buffer references are one flit's worth of control data.
    return 8;
}

const Token& OperatorProcess::peek(int in, int ahead) {
    // A stop rides with the data before it, so a producer stalled on a full stream is about to send data: the
    // consumer can tell that no stop follows without the slot that data would need (as the roofline does).
    static const Token kPendingData = Token::data(step::Element{});
    TokenChannel& c = *in_.at(in);
    const Cycle t0 = now();
    waitFor(fmt::format("input {} on {}", in, c.label()));
    bool sent = c.waitSent(ahead);
    if (sent && ahead == 0) c.waitHead();
    stallInput_ += now() - t0;
    waiting_.clear();
    if (!sent) return kPendingData;
    if (ahead == 0 && c.token(0).isData()) {
        const std::pair<TokenChannel*, std::uint64_t> head{&c, c.seqOf(0)};
        if (std::find(peeked_.begin(), peeked_.end(), head) == peeked_.end()) peeked_.push_back(head);
    }
    return c.token(ahead);
}

Token OperatorProcess::pop(int in) {
    peek(in, 0);
    Token t = in_[in]->read();
    if (t.isData()) {
        ++elements_;
        // Tails learnt since: take them (an operator that never works would otherwise keep them all).
        unknownTails_.erase(std::remove_if(unknownTails_.begin(), unknownTails_.end(),
                                           [&](const auto& u) {
                                               const Cycle t = u.first->takeTail(u.second);
                                               if (t != kNever) inputTail_ = std::max(inputTail_, t);
                                               return t != kNever;
                                           }),
                            unknownTails_.end());
        if (in_[in]->lastTail() == kNever) {
            unknownTails_.emplace_back(in_[in], in_[in]->lastSeq());
            unknownTailsEarliest_ = std::max(unknownTailsEarliest_, in_[in]->lastTailEarliest());
        } else
            inputTail_ = std::max(inputTail_, in_[in]->lastTail());
    }
    return t;
}

Cycle OperatorProcess::inputTailBound() {
    Cycle t = std::max(inputTail_, unknownTailsEarliest_);
    for (auto [ch, seq] : peeked_) {
        if (seq < ch->seqOf(0)) continue; // read since: counted by pop
        bool known = false;
        t = std::max(t, ch->unreadTail(seq, known));
    }
    return t;
}

void OperatorProcess::learnInputTails(bool countStall) {
    for (auto [ch, seq] : peeked_) {
        if (seq < ch->seqOf(0)) continue;
        bool known = false;
        Cycle t = ch->unreadTail(seq, known);
        const Cycle t0 = now();
        while (!known) {
            waitFor(fmt::format("the rest of an element on {}", ch->label()));
            sc_core::wait(ch->dataEvent());
            t = ch->unreadTail(seq, known);
        }
        if (countStall) stallInput_ += now() - t0;
        waiting_.clear();
        inputTail_ = std::max(inputTail_, t);
    }
    peeked_.clear();
    for (auto [ch, seq] : unknownTails_) {
        Cycle t;
        const Cycle t0 = now();
        waitFor(fmt::format("the rest of an element on {}", ch->label()));
        while ((t = ch->takeTail(seq)) == kNever)
            sc_core::wait(ch->dataEvent());
        if (countStall) stallInput_ += now() - t0;
        waiting_.clear();
        inputTail_ = std::max(inputTail_, t);
    }
    unknownTails_.clear();
    unknownTailsEarliest_ = 0;
}

void OperatorProcess::awaitCapacity(int out) {
    TokenChannel& c = *out_.at(out);
    Cycle t0 = now();
    waitFor(fmt::format("a credit of {}", c.label()));
    c.waitForCredit();
    stallOutput_ += now() - t0;
    waiting_.clear();
}

void OperatorProcess::push(int out, Token t) {
    TokenChannel& c = *out_.at(out);
    std::int64_t bytes = fabricBytes(t);
    if (t.isData()) {
        Cycle t0 = now();
        waitFor(fmt::format("a credit of {}", c.label()));
        c.takeCredit();
        stallOutput_ += now() - t0;
        waiting_.clear();
        host_.sent(*this, t, bytes);
    }
    int ticket = -1;
    if (t.isData() && heldTicket_ >= 0) {
        ticket = heldTicket_;
        heldTicket_ = -1;
    }
    if (ticket >= 0 || !outbox_.empty()) {
        outbox_.push_back({&c, std::move(t), bytes, ticket});
        flush();
        return;
    }
    // Data read and passed on as it streams in: the output's tail cannot leave before the input's arrived
    // (where the route has not told that yet, before it can have).
    Cycle at = std::max({now(), readyAt_, lastSend_});
    lastSend_ = at;
    c.send(std::move(t), bytes, at, inputTailBound());
}

void OperatorProcess::ticketDone(int ticket, Cycle at) {
    doneTickets_.emplace_back(ticket, at);
    flush();
}

// Sends the held tokens whose data have returned, in order.
void OperatorProcess::flush() {
    while (!outbox_.empty()) {
        Held& h = outbox_.front();
        Cycle at = std::max({now(), readyAt_, lastSend_});
        if (h.ticket >= 0) {
            auto it = std::find_if(doneTickets_.begin(), doneTickets_.end(),
                                   [&](const auto& d) { return d.first == h.ticket; });
            if (it == doneTickets_.end()) return;
            at = std::max(at, it->second);
            doneTickets_.erase(it);
        }
        lastSend_ = at;
        h.channel->send(std::move(h.token), h.bytes, at, inputTailBound());
        outbox_.pop_front();
    }
    if (finished_) finishCycle_ = std::max(finishCycle_, lastSend_);
}

int OperatorProcess::firstAvailable(const std::vector<int>& ins) {
    for (;;) {
        int best = -1;
        Cycle bestT = kNever, known = kNever;
        const Cycle t = now();
        for (int i : ins) {
            Cycle v = in_.at(i)->headVisible();
            if (v == kNever) continue;
            known = std::min(known, v);
            if (v <= t && v < bestT) {
                best = i;
                bestT = v;
            }
        }
        if (best >= 0) return best;
        // Something may still arrive on another input before the earliest known head: wake on any arrival.
        sc_core::sc_event_or_list any;
        for (int i : ins)
            any |= in_[i]->dataEvent();
        waitFor(fmt::format("the first of {} inputs", ins.size()));
        Cycle t0 = now();
        if (known != kNever)
            sc_core::wait(cycles(known - t), any);
        else
            sc_core::wait(any);
        stallInput_ += now() - t0;
        waiting_.clear();
    }
}

void OperatorProcess::work(const step::Work& w) {
    step::Work scaled = w;
    scaled.elementBytes = fabricBytes(w.elementBytes);
    WorkDone d = host_.perform(*this, scaled);
    if (auto* tl = Timeline::active()) {
        if (track_ < 0) track_ = tl->track("units", name());
        tl->slice(track_, step::Work::name(w.kind), now(), d.done - now());
    }
    busy_ += d.done - now();
    // The work streams over its input as it arrives: it ends no earlier than the input's last bytes (which
    // the flit-level fabric tells only once they are in: the wait overlaps the work).
    learnInputTails(false);
    if (inputTail_ > d.done) {
        stallInput_ += inputTail_ - d.done;
        d.ready += inputTail_ - d.done;
        d.done = inputTail_;
    }
    waitUntil(d.done);
    readyAt_ = std::max(readyAt_, d.ready);
}

void OperatorProcess::offChip(const step::OffChipAccess& a) {
    // Addresses and write data come from the elements read so far: wait for their last bytes.
    learnInputTails();
    if (inputTail_ > now()) {
        stallInput_ += inputTail_ - now();
        waitUntil(inputTail_);
    }
    host_.offChip(*this, a);
}

void OperatorProcess::reportStats(StatsRegistry& stats) const {
    std::string p = name();
    stats.add(p, "busy_cycles", static_cast<double>(busy_));
    stats.add(p, "stall_input_cycles", static_cast<double>(stallInput_));
    stats.add(p, "stall_output_cycles", static_cast<double>(stallOutput_));
    stats.add(p, "stall_memory_cycles", static_cast<double>(stallMemory_));
    stats.add(p, "finish_cycle", static_cast<double>(finishCycle_));
    stats.add(p, "elements", static_cast<double>(elements_));
    stats.add(p, "units", units_);
}

nlohmann::json OperatorProcess::stallCycles(const StatsRegistry& stats) {
    return {{"input", stats.sum("stall_input_cycles")},
            {"output", stats.sum("stall_output_cycles")},
            {"memory", stats.sum("stall_memory_cycles")}};
}

} // namespace steprdu::hw
