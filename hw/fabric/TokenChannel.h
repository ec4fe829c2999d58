#pragma once
// The one communication primitive of the chip: a stream of stop-token-annotated tokens between two
// operators, with DAM's semantics. It holds at most `capacity` data elements between the producer's send and
// the credit's return (0 = unbounded); a token becomes visible to the consumer when its route delivers it,
// never before the token ahead of it. Units work on an element as it streams in (cut-through): a data
// element is visible once its first bytes are in, and its reader learns when its last bytes arrive; a stop
// token or Done is visible only once the data ahead of it has wholly arrived. The consumer's buffer drains as
// it reads, so the credit of an element starts back when the consumer starts reading it and reaches the
// producer after the route's credit latency. Stop tokens and Done take no credit. The producer and consumer
// are SystemC threads that block on the channel's events; the channel itself only keeps timestamps.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <queue>
#include <string>
#include <vector>

#include <systemc>

#include "hw/sim/SimTime.h"
#include "step_ops/Token.h"

namespace steprdu::hw {

class StreamRoute;

class TokenChannel : public sc_core::sc_prim_channel {
  public:
    // `label` names the stream in reports ("gate[0] -> silu[0]").
    TokenChannel(const std::string& label, std::int64_t capacity);
    const std::string& label() const { return label_; }

    void setRoute(StreamRoute* r) { route_ = r; }
    StreamRoute* route() const { return route_; }
    std::int64_t capacity() const { return capacity_; }

    // Producer side. A data token needs a credit: take one (blocking the calling thread until one is back),
    // then send the token, possibly later (an AGCU sends a tile when its data has returned).
    void takeCredit();
    void waitForCredit(); // blocks until a credit is free, without taking it
    bool creditFree();    // applies credits returned by now
    // Hands the token to the route; its head enters the fabric at `at` (>= now), its tail no earlier than
    // `tailReady` (data forwarded as it arrives). Returns its sequence number.
    std::uint64_t send(step::Token t, std::int64_t bytes, Cycle at, Cycle tailReady = 0);
    bool producerWaiting() const { return producerWaiting_; }

    // Route side: token `seq` reached the consumer's side, its first bytes at `head`, its last at `tail`.
    // A route that learns of the head first (the flit-level fabric) says so with headArrived.
    void arrived(std::uint64_t seq, Cycle head, Cycle tail);
    void headArrived(std::uint64_t seq, Cycle head);

    // Consumer side. `available(ahead)`: the token `ahead` places behind the head has been sent.
    bool available(int ahead) const { return static_cast<int>(entries_.size()) > ahead; }
    // Blocks until the token `ahead` places behind the head has been sent; returns false instead when the
    // producer stalls for a credit right before it (the token will be data: stops take no credit).
    bool waitSent(int ahead);
    // Blocks until the head token is visible (arrived, and not before the one ahead of it).
    void waitHead();
    const step::Token& token(int ahead) const { return entries_[ahead].token; }
    // When the head is visible (kNever if it has not arrived).
    Cycle headVisible() const { return entries_.empty() ? kNever : entries_.front().visible; }
    // The head, visible by now; its credit starts back to the producer once its last bytes are in.
    step::Token read();
    // The token read last: its sequence number, and when its last bytes arrive (may lie ahead of now; kNever
    // while the route has not said, in which case takeTail(seq) gives it once it has).
    std::uint64_t lastSeq() const { return lastSeq_; }
    Cycle lastTail() const { return lastTail_; }
    Cycle takeTail(std::uint64_t seq);
    // The token `ahead` places behind the head (sent, not read): its sequence number; for `seq` not yet
    // read, when its last bytes arrive, or the earliest they can while the route has not said (`known`).
    std::uint64_t seqOf(int ahead) const { return headSeq_ + static_cast<std::uint64_t>(ahead); }
    Cycle unreadTail(std::uint64_t seq, bool& known) const;
    // The earliest the last bytes of the token read last can arrive: its head plus its serialization on the
    // stream's lanes (setLanes).
    Cycle lastTailEarliest() const { return lastTailEarliest_; }
    void setLanes(int lanes, int flitBytes) {
        lanes_ = std::max(1, lanes);
        flitBytes_ = std::max(1, flitBytes);
    }
    // The round trip of an element and its credit over the fabric, and the elements per cycle the rate model
    // plans for the stream: the consumer's buffer holds enough elements to cover the one at the other
    // (creditsOut).
    void setRoundTrip(Cycle rtt, double plannedElementsPerCycle) {
        rtt_ = rtt;
        plannedRate_ = plannedElementsPerCycle;
    }
    // Elements the producer may have out: the stream's depth, or more where the round trip at the planned
    // rate needs them.
    std::int64_t creditsOut() const;
    sc_core::sc_event& dataEvent() { return dataEvent_; }

    // Statistics.
    std::int64_t tokens() const { return tokens_; }
    std::int64_t dataBytes() const { return dataBytes_; }
    std::int64_t maxOccupancy() const;
    double meanOccupancy(Cycle elapsed) const;
    // What is stuck in it, for deadlock reports.
    std::string state() const;

  private:
    struct Entry {
        step::Token token;
        bool data = false;
        std::int64_t bytes = 0;
        Cycle arrival = kNever, tail = kNever, visible = kNever;
        Cycle reach = kNever; // the latest tail of this token and every one ahead of it
    };
    void account(); // integrates occupancy up to now
    void propagate(std::size_t idx);
    // Its tail if told, else its head plus its serialization on the stream's lanes.
    Cycle earliestTail(const Entry& e) const;
    void returnCredits();
    // Counts the data that have entered by now, and the reads of earlier cycles, into held_.
    void enter();

    std::string label_;
    std::int64_t capacity_;
    StreamRoute* route_ = nullptr;
    std::deque<Entry> entries_; // sent and not yet read, in order
    std::uint64_t headSeq_ = 0, nextSeq_ = 0;
    Cycle lastVisible_ = 0, lastReach_ = 0; // of the last token read; the latest tail of those read
    Cycle lastTail_ = 0, lastTailEarliest_ = 0;
    std::uint64_t lastSeq_ = 0;
    int lanes_ = 1, flitBytes_ = 64;
    Cycle rtt_ = 0;
    double plannedRate_ = 0;
    std::int64_t lastDataBytes_ = 0;
    std::map<std::uint64_t, Cycle> readTails_; // tails learnt after their token was read, not yet taken
    int readTailsUnknown_ = 0;                 // tokens read whose tails the route has not given yet
    std::int64_t used_ = 0;                    // credits out: data sent and not yet credited back
    std::int64_t occupancy_ = 0;               // data sent and not yet read
    std::deque<Cycle> creditReturns_;
    bool producerWaiting_ = false, lookaheadWaiting_ = false;
    sc_core::sc_event dataEvent_, creditEvent_;
    std::int64_t tokens_ = 0, dataBytes_ = 0, maxOccupancy_ = 0;
    // For the maximum, an element is in the stream from the cycle it enters it (not when its producer knew
    // that cycle: an AGCU sends a tile ahead of its data's return) to the cycle it is read, both included,
    // whatever the order of the processes within a cycle: held_ counts the elements entered and not read
    // before readCycle_, readNow_ those read in it; entering_ holds the cycles of the rest.
    std::int64_t held_ = 0, readNow_ = 0;
    Cycle readCycle_ = 0;
    std::priority_queue<Cycle, std::vector<Cycle>, std::greater<>> entering_;
    double occupancyIntegral_ = 0;
    Cycle accountedTo_ = 0;
};

} // namespace steprdu::hw
