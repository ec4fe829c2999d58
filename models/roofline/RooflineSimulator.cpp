#include "models/roofline/RooflineSimulator.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <exception>
#include <queue>

#include <boost/context/fiber.hpp>
#include <fmt/format.h>

#include "step_ops/OperatorFiber.h"
#include "step_ops/TensorStore.h"
#include "util/Error.h"

namespace steprdu::roofline {

namespace ctx = boost::context;
using step::Token;

namespace {

constexpr std::int64_t kNever = HbmNode::kNever;

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) {
    return b <= 0 ? 0 : (a + b - 1) / b;
}

struct Task;
class Engine;

// A stream between two operators with DAM's semantics: an element pushed at the sender's time t becomes
// visible at t+1; a bounded stream holds `capacity` data elements, and a slot frees one cycle after the
// receiver dequeues (with damCredits: one cycle after the element became visible, unless the receiver had to
// wait in between). Stop tokens and Done ride with the data (the published simulator attaches
// stop levels to the last element), so they take no slot.
struct Channel {
    struct Entry {
        std::int64_t visible;
        Token token;
        bool peeked = false;
        std::uint64_t waitsAtPeek = 0; // the receiver's wait count when it first looked at this element
    };
    std::deque<Entry> q;
    std::deque<std::int64_t> credits; // when the slots of dequeued elements free up, in order
    std::int64_t capacity = 0, dataQueued = 0, lastVisible = 0;
    Task* producer = nullptr;
    Task* consumer = nullptr;
    bool producerWaiting = false, consumerWaiting = false;
    std::string name;
};

struct Task {
    const step::Operator* op = nullptr;
    int id = 0;
    std::vector<Channel*> in, out;
    ctx::fiber fiber, scheduler;
    std::int64_t now = 0, busy = 0, elements = 0;
    int track = -1;          // its timeline track
    std::uint64_t seq = 0;   // invalidates stale queue entries
    std::uint64_t waits = 0; // times it waited for an input, an output slot or the memory
    std::int64_t queuedAt = kNever;
    bool finished = false;
    std::exception_ptr error;
    std::string waiting;
};

struct QueueEntry {
    std::int64_t time;
    int task; // -1: the HBM node
    std::uint64_t seq;
    bool operator>(const QueueEntry& o) const { return time != o.time ? time > o.time : task > o.task; }
};

class Engine {
  public:
    Engine(const RooflineOptions& o, step::Graph& g, RooflineResult& r)
        : o_(o), g_(g), r_(r), hbm_(o.hbm), store_(g, false) {}

    void run();
    void schedule(Task& t, std::int64_t time);
    void wake(Task& t, std::int64_t time) {
        if (!t.finished) schedule(t, std::max(t.now, time));
    }
    void block(Task& t, std::string why) {
        t.waiting = std::move(why);
        t.scheduler = std::move(t.scheduler).resume();
        t.waiting.clear();
    }
    // Yields until every other operator's clock has reached this one's, so that actions that depend on the
    // global order (the shared HBM, arrival-order merges) happen in simulated-time order.
    void sync(Task& t) {
        if (!queue_.empty() && queue_.top().time < t.now) {
            schedule(t, t.now);
            block(t, "its turn");
        }
    }
    void push(Task& t, Channel& c, Token tok);
    void awaitSlot(Task& t, Channel& c);
    Token pop(Task& t, Channel& c);
    const Token& peek(Task& t, Channel& c, int ahead);
    int firstAvailable(Task& t, const std::vector<int>& ins);
    void work(Task& t, const step::Work& w);
    void offChip(Task& t, const step::OffChipAccess& a);
    step::TensorStore& store() { return store_; }
    void scheduleHbm();

  private:
    std::int64_t bytesOf(std::int64_t elems, std::int64_t native) const {
        return o_.timingElemBytes ? elems * o_.timingElemBytes : native;
    }
    [[noreturn]] void deadlock(const std::string& why);

    const RooflineOptions& o_;
    step::Graph& g_;
    RooflineResult& r_;
    HbmNode hbm_;
    step::TensorStore store_;
    std::vector<std::unique_ptr<Channel>> channels_;
    std::vector<Task> tasks_;
    std::priority_queue<QueueEntry, std::vector<QueueEntry>, std::greater<>> queue_;
    std::int64_t hbmQueuedAt_ = kNever;
    std::uint64_t hbmSeq_ = 0;
    std::int64_t lastTaken_ = 0; // the latest cycle at which an operator took a token
};

class RooflineIO : public step::OpIO {
  public:
    RooflineIO(Engine& e, Task& t) : e_(e), t_(t) {}
    using OpIO::peek;
    const Token& peek(int in, int ahead) override { return e_.peek(t_, *t_.in.at(in), ahead); }
    Token pop(int in) override { return e_.pop(t_, *t_.in.at(in)); }
    void push(int out, Token t) override { e_.push(t_, *t_.out.at(out), std::move(t)); }
    void awaitCapacity(int out) override { e_.awaitSlot(t_, *t_.out.at(out)); }
    int firstAvailable(const std::vector<int>& ins) override { return e_.firstAvailable(t_, ins); }
    void work(const step::Work& w) override { e_.work(t_, w); }
    void offChip(const step::OffChipAccess& a) override { e_.offChip(t_, a); }
    bool functional() const override { return false; }
    step::TensorStore& memory() override { return e_.store(); }

  private:
    Engine& e_;
    Task& t_;
};

void Engine::schedule(Task& t, std::int64_t time) {
    if (t.queuedAt <= time) return; // already due no later than that
    t.queuedAt = time;
    queue_.push({time, t.id, ++t.seq});
}

void Engine::scheduleHbm() {
    std::int64_t next = hbm_.nextCycle();
    if (next == kNever || hbmQueuedAt_ <= next) return;
    hbmQueuedAt_ = next;
    queue_.push({next, -1, ++hbmSeq_});
}

void Engine::awaitSlot(Task& t, Channel& c) {
    if (c.capacity <= 0) return;
    for (;;) {
        while (!c.credits.empty() && c.credits.front() <= t.now)
            c.credits.pop_front();
        if (c.dataQueued + static_cast<std::int64_t>(c.credits.size()) < c.capacity) return;
        if (!c.credits
                 .empty()) { // a slot frees when its credit returns: the sender's clock stalls until then
            t.now = c.credits.front();
            continue;
        }
        c.producerWaiting = true;
        if (c.consumerWaiting) { // it may be looking for what follows the queued data: more data
            c.consumerWaiting = false;
            wake(*c.consumer, t.now);
        }
        ++t.waits;
        block(t, "a free slot in " + c.name);
    }
}

void Engine::push(Task& t, Channel& c, Token tok) {
    if (tok.isData() && c.capacity > 0) {
        awaitSlot(t, c);
        ++c.dataQueued;
    }
    std::int64_t visible = std::max(t.now + 1, c.lastVisible);
    c.lastVisible = visible;
    if (o_.timeline && tok.isData()) o_.timeline->level("streams", c.name, visible, 1);
    c.q.push_back({visible, std::move(tok)});
    ++r_.tokens;
    if (c.consumerWaiting) {
        c.consumerWaiting = false;
        wake(*c.consumer, visible);
    }
}

const Token& Engine::peek(Task& t, Channel& c, int ahead) {
    // A stop rides with the data before it, so a producer stalled on a full stream is about to send data: the
    // consumer can tell that no stop follows without the slot that data would need.
    static const Token kPendingData = Token::data(step::Element{});
    while (static_cast<int>(c.q.size()) <= ahead) {
        if (ahead > 0 && static_cast<int>(c.q.size()) == ahead && c.producerWaiting) return kPendingData;
        c.consumerWaiting = true;
        ++t.waits;
        block(t, "input " + c.name);
    }
    if (ahead == 0) {
        auto& head = c.q.front();
        t.now = std::max(t.now, head.visible);
        if (!head.peeked) {
            head.peeked = true;
            head.waitsAtPeek = t.waits;
        }
    }
    return c.q[ahead].token;
}

Token Engine::pop(Task& t, Channel& c) {
    peek(t, c, 0);
    const std::int64_t visible = c.q.front().visible;
    const bool waitedSincePeek = c.q.front().waitsAtPeek != t.waits;
    Token tok = std::move(c.q.front().token);
    c.q.pop_front();
    if (o_.timeline && tok.isData()) o_.timeline->level("streams", c.name, t.now, -1);
    if (tok.isData() && c.capacity > 0) {
        --c.dataQueued;
        // DAM stamps the response with the element's time. But a sender out of credits follows the
        // receiver's clock while the receiver is blocked (on an input, an output or the memory), so after
        // such a wait the slot frees only with the dequeue.
        std::int64_t credit = o_.damCredits && !waitedSincePeek ? visible + 1 : t.now + 1;
        c.credits.insert(std::upper_bound(c.credits.begin(), c.credits.end(), credit), credit);
        if (c.producerWaiting) {
            c.producerWaiting = false;
            wake(*c.producer, credit);
        }
    }
    if (tok.isData()) ++t.elements;
    // Operators run in the order of their clocks, so the takes come in time order but for the few cycles an
    // operator's clock runs ahead while it works.
    if (o_.watchdogCycles && t.now - lastTaken_ > o_.watchdogCycles)
        deadlock(
            fmt::format("watchdog: no operator took a token in the {} cycles since cycle {}; {} took one "
                        "at cycle {}",
                        o_.watchdogCycles, lastTaken_, t.op->where(), t.now));
    lastTaken_ = std::max(lastTaken_, t.now);
    return tok;
}

int Engine::firstAvailable(Task& t, const std::vector<int>& ins) {
    for (;;) {
        sync(t);
        int best = -1;
        std::int64_t bestTime = kNever, earliest = kNever;
        for (int i : ins) {
            Channel& c = *t.in.at(i);
            if (c.q.empty()) continue;
            std::int64_t v = c.q.front().visible;
            earliest = std::min(earliest, v);
            if (v <= t.now && v < bestTime) {
                best = i;
                bestTime = v;
            }
        }
        if (best >= 0) return best;
        if (earliest != kNever) { // move to the earliest head, then make sure nothing earlier is still coming
            t.now = earliest;
            continue;
        }
        for (int i : ins)
            t.in[i]->consumerWaiting = true;
        ++t.waits;
        block(t, "the first of several inputs");
        for (int i : ins)
            t.in[i]->consumerWaiting = false;
    }
}

void Engine::work(Task& t, const step::Work& w) {
    using K = step::Work::Kind;
    std::int64_t load = ceilDiv(bytesOf(w.loadElems, w.loadBytes), o_.pmuBytesPerCycle);
    std::int64_t cycles = 0;
    switch (w.kind) {
    case K::Compute: {
        std::int64_t store = ceilDiv(bytesOf(w.storeElems, w.storeBytes), o_.pmuBytesPerCycle);
        std::int64_t compute = w.fixedCycles ? *w.fixedCycles : ceilDiv(w.flops, w.computeBw);
        cycles = std::max({load, compute, store});
        break;
    }
    case K::MemoryRead:
        cycles = load;
        break;
    case K::Route: { // one switch cycle after the read, then the write-back if the switch stores the element
        std::int64_t store = ceilDiv(bytesOf(w.storeElems, w.storeBytes), o_.pmuBytesPerCycle);
        if (w.arrivalInput >= 0) { // no earlier than the element's arrival + switch + read
            std::int64_t at =
                t.in.at(w.arrivalInput)->q.front().visible + (o_.reassembleArrivalOnly ? 0 : 1 + load);
            cycles = std::max<std::int64_t>(0, at - t.now) + store;
        } else {
            cycles = load + 1 + store;
        }
        break;
    }
    case K::Merge:
    case K::Repeat:
    case K::BufferElement:
        cycles = 1;
        break;
    }
    if (o_.timeline) o_.timeline->slice(t.track, step::Work::name(w.kind), t.now, cycles);
    t.now += cycles;
    t.busy += cycles;
}

void Engine::offChip(Task& t, const step::OffChipAccess& a) {
    sync(t);
    int eb = (o_.timingElemBytes && a.elemBytes == 4) ? o_.timingElemBytes : a.elemBytes;
    std::int64_t requests = a.rows * ceilDiv(a.cols * eb, o_.hbm.requestBytes);
    (a.write ? r_.offChipWriteBytes : r_.offChipReadBytes) += a.bytes();
    bool done = false;
    std::int64_t at = 0;
    hbm_.submit(t.id, a.write, t.now, requests, a.parDispatch, [&](std::int64_t d) {
        done = true;
        at = d;
        wake(t, d);
    });
    scheduleHbm();
    if (!done) ++t.waits;
    while (!done)
        block(t, "off-chip tile");
    if (o_.timeline)
        o_.timeline->rate("memory", a.write ? "hbm write" : "hbm read", t.now, at,
                          static_cast<double>(a.bytes()));
    t.now = std::max(t.now, at);
}

void Engine::deadlock(const std::string& why) {
    std::string report;
    for (auto& t : tasks_)
        if (!t.finished) report += fmt::format("; {} (t={}) waits for {}", t.op->where(), t.now, t.waiting);
    for (auto& c : channels_)
        if (c->capacity > 0 && c->dataQueued >= c->capacity)
            report += fmt::format("; stream {} is full", c->name);
    throw NoProgress("roofline: no forward progress (" + why + ")" + report);
}

void Engine::run() {
    int n = g_.numOps();
    tasks_.resize(n);
    for (int i = 0; i < n; ++i) {
        tasks_[i].op = &g_.op(i);
        tasks_[i].id = i;
        if (o_.timeline) tasks_[i].track = o_.timeline->track("operators", g_.op(i).name());
        tasks_[i].out.resize(g_.op(i).outputs().size());
    }
    for (int i = 0; i < n; ++i) {
        for (std::size_t p = 0; p < g_.op(i).inputs().size(); ++p) {
            step::StreamRef r = g_.op(i).inputs()[p];
            auto c = std::make_unique<Channel>();
            const auto& producer = g_.op(r.op);
            auto it = o_.depthByProducer.find(producer.name());
            bool ownDepth = it != o_.depthByProducer.end() &&
                            !(o_.broadcastDefaultDepth && producer.kind() == "Broadcast");
            c->capacity = g_.op(i).kind() == "Sink" ? 0 : ownDepth ? it->second : o_.channelDepth;
            c->producer = &tasks_[r.op];
            c->consumer = &tasks_[i];
            c->name = fmt::format("{}[{}] -> {}[{}]", producer.name(), r.out, g_.op(i).name(), p);
            tasks_[i].in.push_back(c.get());
            tasks_[r.op].out[r.out] = c.get();
            channels_.push_back(std::move(c));
        }
    }
    for (auto& t : tasks_) {
        Task* self = &t;
        Engine* engine = this;
        t.fiber = step::operatorFiber(self, [self, engine] {
            RooflineIO io(*engine, *self);
            self->op->run(io);
        });
        schedule(t, 0);
    }
    auto start = std::chrono::steady_clock::now();
    std::int64_t steps = 0;
    double nextProgress = o_.progressSeconds;
    while (!queue_.empty()) {
        QueueEntry e = queue_.top();
        queue_.pop();
        if (o_.maxCycles && e.time > o_.maxCycles)
            throw LimitReached(fmt::format("roofline: --max-cycles {} reached", o_.maxCycles));
        if ((o_.maxWallSeconds || o_.progress) && (++steps & 0xfff) == 0) { // the clock is read rarely
            double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (o_.maxWallSeconds && wall > o_.maxWallSeconds)
                throw LimitReached(fmt::format("roofline: --max-wall-seconds {} reached at cycle {}",
                                               o_.maxWallSeconds, e.time));
            if (o_.progress && wall >= nextProgress) {
                o_.progress(e.time, wall);
                nextProgress = wall + o_.progressSeconds;
            }
        }
        if (e.task < 0) {
            if (e.seq != hbmSeq_) continue;
            hbmQueuedAt_ = kNever;
            // Every operator is at or past the queue's head, so no packet can appear at or before it.
            hbm_.advanceTo(queue_.empty() ? kNever - 1 : queue_.top().time);
            scheduleHbm();
            continue;
        }
        Task& t = tasks_[e.task];
        if (t.finished || e.seq != t.seq) continue;
        t.queuedAt = kNever;
        ++r_.switches;
        t.fiber = std::move(t.fiber).resume();
        if (t.error) std::rethrow_exception(t.error);
    }
    for (auto& t : tasks_)
        if (!t.finished) deadlock("every operator left waits");
    for (auto& t : tasks_) {
        r_.cycles = std::max(r_.cycles, t.now);
        r_.operators.push_back({t.op->name(), t.op->kind(), t.now, t.busy, t.elements});
    }
    r_.hbm = hbm_.stats();
}

} // namespace

RooflineResult RooflineSimulator::run(step::Graph& g) {
    g.finalize();
    RooflineResult r;
    Engine e(o_, g, r);
    e.run();
    return r;
}

} // namespace steprdu::roofline
