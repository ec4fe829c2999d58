#include "hw/mem/dram/MemorySystem.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace steprdu::hw::mem {

namespace {
constexpr std::int64_t kSlice = 256;
}

MemorySystem::MemorySystem(const DramSpec& spec, const MemorySystemOptions& o)
    : spec_(spec), o_(o), mapping_(o.mapping.value_or(spec.mapping), spec_) {
    for (int c = 0; c < spec_.channels; ++c) {
        if (o_.checkTiming) checkers_.push_back(std::make_unique<DramChecker>(spec_));
        channels_.push_back(std::make_unique<DramController>(
            spec_, o_.controller, c, *this, o_.checkTiming ? checkers_.back().get() : nullptr));
    }
    channelNext_.assign(channels_.size(), kNeverCycle);
    lookahead_ = kNeverCycle;
}

MemorySystem::Client& MemorySystem::client(int c) {
    if (c >= static_cast<int>(clients_.size())) {
        clients_.resize(c + 1);
        clientNext_.resize(c + 1, kNeverCycle);
    }
    return clients_[c];
}

// A client's next front-end event: its held transactions' next ready cycle while it has a free slot, else
// the first slot to come back.
void MemorySystem::clientChanged(int c) {
    const Client& cl = clients_[c];
    std::int64_t t = kNeverCycle;
    if (!cl.held.empty())
        t = cl.outstanding < cl.cap ? cl.heldReady : cl.frees.empty() ? kNeverCycle : cl.frees.earliest();
    clientNext_[c] = t;
}

void MemorySystem::setWindow(int c, int transactions, int returnLatency) {
    Client& cl = client(c);
    cl.cap = transactions;
    cl.returnLatency = returnLatency;
    clientChanged(c);
    // A command at t moves its data no sooner than min(CL, CWL) + BL later, and the slot comes back the
    // return latency after that: the front end cannot change before then. A posted write's slot comes back
    // the return latency after its queue took it.
    std::int64_t la = o_.controller.postedWrites ? 0 : std::min(spec_.t.nCL, spec_.t.nCWL) + spec_.t.nBL;
    for (const auto& k : clients_)
        if (k.cap > 0) lookahead_ = std::min(lookahead_, la + o_.clock.toDram(k.returnLatency) - 1);
    lookahead_ = std::max<std::int64_t>(lookahead_, 1);
}

int MemorySystem::submit(int c, bool write, const std::vector<ByteRange>& ranges, std::int64_t issue,
                         double perCycle) {
    Client& cl = client(c);
    int id;
    if (!freeRequests_.empty()) {
        id = freeRequests_.back();
        freeRequests_.pop_back();
    } else {
        id = static_cast<int>(requests_.size());
        requests_.emplace_back();
    }
    const std::uint64_t tx = spec_.transactionBytes;
    std::int64_t count = 0;
    for (const auto& range : ranges)
        if (range.bytes > 0)
            count +=
                static_cast<std::int64_t>((range.address + range.bytes - 1) / tx - range.address / tx + 1);
    requests_[id] = Request{c, count, 0};
    ++pending_;
    bytes_[write ? 1 : 0] += count * spec_.transactionBytes;
    if (count == 0) { // nothing to move: complete at once
        --pending_;
        freeRequests_.push_back(id);
        if (onRequest_) onRequest_(id, o_.clock.toDram(issue));
        return id;
    }
    int k;
    if (!freeStreams_.empty()) {
        k = freeStreams_.back();
        freeStreams_.pop_back();
    } else {
        k = static_cast<int>(streams_.size());
        streams_.emplace_back();
    }
    Stream& st = streams_[k];
    st.request = id;
    st.write = write;
    st.ranges = ranges;
    st.range = 0;
    st.j = 0;
    st.issue = issue;
    st.floor = pos_;
    st.seq = seq_;
    st.perCycle = perCycle;
    st.first = std::max(o_.clock.toDram(issue), pos_);
    st.next = 1;
    st.last = 0;
    seq_ += count;
    advance(st);
    if (cl.cap > 0) {
        // Held back by the window: its transactions leave in order as slots free.
        if (cl.held.empty()) cl.heldReady = readyOf(st);
        cl.held.push_back(k);
        cl.outstanding -= cl.frees.releaseUpTo(lastRelease_);
        clientChanged(c);
        return id;
    }
    const Key key{readyOf(st), st.seq};
    queueStream(k, key);
    // A stream that starts before what was already sent is sent up to there at once, so that every input
    // buffer keeps the order of sending everything; a request of one transaction is sent at once, with
    // everything before it (holding it back would cost more than it saves). Then every channel gets
    // something to start with.
    while (next_ >= 0 && (nextKey_ < sent_ || (count == 1 && !(key < nextKey_))))
        sendNext();
    for (int ch = 0; ch < channels() && next_ >= 0; ++ch)
        while (channels_[ch]->inputEmpty() && next_ >= 0)
            sendNext();
    return id;
}

bool MemorySystem::advance(Stream& s) {
    const std::uint64_t tx = spec_.transactionBytes;
    while (s.next > s.last) {
        if (s.range == s.ranges.size()) return false;
        const ByteRange& r = s.ranges[s.range++];
        if (r.bytes <= 0) continue;
        s.next = r.address / tx;
        s.last = (r.address + r.bytes - 1) / tx;
    }
    return true;
}

std::int64_t MemorySystem::readyOf(const Stream& s) const {
    if (s.perCycle <= 0) return s.first;
    const std::int64_t leave = s.issue + static_cast<std::int64_t>(std::floor(s.j / s.perCycle));
    return std::max(o_.clock.toDram(leave), s.floor);
}

int MemorySystem::makeTransaction(Stream& s, std::int64_t ready, Transaction& x) {
    const DramLocation a = mapping_.locate(s.next * spec_.transactionBytes);
    x.request = s.request;
    x.write = s.write;
    x.bank = a.bank;
    x.row = a.row;
    x.ready = ready;
    x.seq = s.seq + s.j;
    ++s.next;
    ++s.j;
    return a.channel;
}

void MemorySystem::queueStream(int k, Key key) {
    if (next_ < 0) {
        next_ = k;
        nextKey_ = key;
        return;
    }
    if (key < nextKey_) {
        std::swap(k, next_);
        std::swap(key, nextKey_);
    }
    pendingStreams_.push({key, k});
}

void MemorySystem::sendNext() {
    const int k = next_;
    sent_ = std::max(sent_, nextKey_);
    Stream& s = streams_[k];
    Transaction x;
    const int channel = makeTransaction(s, nextKey_.first, x);
    // The stream stays next while its key is the least (a long request: no heap operation per transaction).
    const bool more = advance(s);
    const Key key{more ? readyOf(s) : 0, s.seq + s.j};
    if (more && (pendingStreams_.empty() || !(pendingStreams_.top().first < key))) {
        nextKey_ = key;
    } else {
        if (more)
            pendingStreams_.push({key, k});
        else
            freeStreams_.push_back(k);
        next_ = -1;
        if (!pendingStreams_.empty()) {
            std::tie(nextKey_, next_) = pendingStreams_.top();
            pendingStreams_.pop();
        }
    }
    channels_[channel]->submit(x);
    channelChanged(channel);
}

void MemorySystem::inputDrained(int channel) {
    while (channels_[channel]->inputEmpty() && next_ >= 0)
        sendNext();
}

void MemorySystem::transactionDone(int, const Transaction& x, std::int64_t data) {
    lastData_ = std::max(lastData_, data);
    if (!(x.write && o_.controller.postedWrites)) done(x, data);
}

void MemorySystem::writeQueued(int, const Transaction& x, std::int64_t cycle) {
    done(x, cycle);
}

void MemorySystem::done(const Transaction& x, std::int64_t data) {
    if (onTransaction_) onTransaction_(x.request, data);
    Request& r = requests_[x.request];
    r.last = std::max(r.last, data);
    Client& cl = clients_[r.client];
    if (cl.cap > 0) {
        const std::int64_t back = o_.clock.toDram(o_.clock.toFabric(data) + cl.returnLatency);
        cl.frees.add(back);
        if (!cl.held.empty() && cl.outstanding >= cl.cap)
            clientNext_[r.client] = std::min(clientNext_[r.client], back);
    }
    if (--r.remaining == 0) {
        --pending_;
        freeRequests_.push_back(x.request);
        if (onRequest_) onRequest_(x.request, r.last);
    }
}

std::int64_t MemorySystem::frontEndNext() const {
    std::int64_t t = kNeverCycle;
    for (std::int64_t c : clientNext_)
        t = std::min(t, c);
    return std::max(t, pos_);
}

// The window slots that are back by `t` free up, and held transactions take them, in order.
// A client whose next event is later has nothing to release now; its slots that are back are counted when it
// next has (or gets) held transactions, as if counted now.
void MemorySystem::releaseHeld(std::int64_t t) {
    lastRelease_ = t;
    for (int c = 0; c < static_cast<int>(clients_.size()); ++c) {
        if (clientNext_[c] > t) continue;
        Client& cl = clients_[c];
        cl.outstanding -= cl.frees.releaseUpTo(t);
        while (!cl.held.empty() && cl.outstanding < cl.cap && cl.heldReady <= t) {
            Stream& s = streams_[cl.held.front()];
            Transaction x;
            const int channel = makeTransaction(s, t, x);
            if (advance(s)) {
                cl.heldReady = readyOf(s);
            } else {
                freeStreams_.push_back(cl.held.front());
                cl.held.pop_front();
                if (!cl.held.empty()) cl.heldReady = readyOf(streams_[cl.held.front()]);
            }
            channels_[channel]->submit(x);
            channelChanged(channel);
            ++cl.outstanding;
        }
        clientChanged(c);
    }
}

std::int64_t MemorySystem::nextEvent() const {
    std::int64_t t = frontEndNext();
    for (std::int64_t c : channelNext_)
        t = std::min(t, c);
    return t;
}

bool MemorySystem::step(std::int64_t h) {
    const std::int64_t fe = frontEndNext();
    std::int64_t t = fe;
    int first = -1;
    for (int c = 0; c < channels(); ++c)
        if (channelNext_[c] < t) {
            t = channelNext_[c];
            first = c;
        }
    if (t >= h || t == kNeverCycle) return false;
    pos_ = std::max(pos_, t);
    if (first >= 0) {
        channels_[first]->advanceTo(t + 1);
        channelChanged(first);
    } else {
        releaseHeld(t);
    }
    return true;
}

void MemorySystem::advanceTo(std::int64_t h) {
    const bool toEnd = h == kNeverCycle;
    while (pos_ < h) {
        const std::int64_t fe = frontEndNext();
        std::int64_t t = fe;
        for (std::int64_t c : channelNext_)
            t = std::min(t, c);
        if (t >= h) break;
        if (fe == t) {
            pos_ = t;
            releaseHeld(t);
            // Decide this cycle before the front end looks again.
            for (int c = 0; c < channels(); ++c)
                if (channelNext_[c] <= t) {
                    channels_[c]->advanceTo(t + 1);
                    channelChanged(c);
                }
            pos_ = t + 1;
            continue;
        }
        // Channels go forward together in slices, so the requests they finish stay few and in cache.
        std::int64_t bound = std::min({h, fe, t + kSlice});
        if (lookahead_ != kNeverCycle) bound = std::min(bound, t + lookahead_);
        for (int c = 0; c < channels(); ++c)
            if (channelNext_[c] < bound) {
                channels_[c]->advanceTo(bound);
                channelChanged(c);
            }
        if (bound != kNeverCycle) pos_ = std::max(pos_, bound);
    }
    // Run to the end: the next request may come at any cycle after the last one decided.
    if (!toEnd) pos_ = std::max(pos_, h);
}

} // namespace steprdu::hw::mem
