#pragma once
// The one communication primitive of the chip: a stream of stop-token-annotated tokens between two
// operators, with DAM's semantics. It holds at most `capacity` data elements between the producer's send and
// the credit's return (0 = unbounded); a token becomes visible to the consumer when its route delivers it,
// never before the token ahead of it; the credit of a read element reaches the producer after the route's
// credit latency. Stop tokens and Done take no credit. The producer and consumer are SystemC threads that
// block on the channel's events; the channel itself only keeps timestamps.
#include <cstdint>
#include <deque>
#include <string>

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
    // Hands the token to the route; it enters the fabric at `at` (>= now). Returns its sequence number.
    std::uint64_t send(step::Token t, std::int64_t bytes, Cycle at);
    bool producerWaiting() const { return producerWaiting_; }

    // Route side: token `seq` reached the consumer's side at `arrival`.
    void arrived(std::uint64_t seq, Cycle arrival);

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
    step::Token read(); // the head, visible by now; its credit starts back to the producer
    sc_core::sc_event& dataEvent() { return dataEvent_; }

    // Statistics.
    std::int64_t tokens() const { return tokens_; }
    std::int64_t dataBytes() const { return dataBytes_; }
    std::int64_t maxOccupancy() const { return maxOccupancy_; }
    double meanOccupancy(Cycle elapsed) const;
    // What is stuck in it, for deadlock reports.
    std::string state() const;

  private:
    struct Entry {
        step::Token token;
        bool data = false;
        Cycle arrival = kNever, visible = kNever;
    };
    void account(); // integrates occupancy up to now
    void returnCredits();

    std::string label_;
    std::int64_t capacity_;
    StreamRoute* route_ = nullptr;
    std::deque<Entry> entries_; // sent and not yet read, in order
    std::uint64_t headSeq_ = 0, nextSeq_ = 0;
    Cycle lastVisible_ = 0;      // of the last token read
    std::int64_t used_ = 0;      // credits out: data sent and not yet credited back
    std::int64_t occupancy_ = 0; // data sent and not yet read
    std::deque<Cycle> creditReturns_;
    bool producerWaiting_ = false, lookaheadWaiting_ = false;
    sc_core::sc_event dataEvent_, creditEvent_;
    std::int64_t tokens_ = 0, dataBytes_ = 0, maxOccupancy_ = 0;
    double occupancyIntegral_ = 0;
    Cycle accountedTo_ = 0;
};

} // namespace steprdu::hw
