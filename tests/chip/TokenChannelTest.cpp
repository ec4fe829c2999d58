// The token channel's DAM semantics against cycles derived by hand: capacity in data elements, credits that
// return a route's credit latency after the read, stop tokens that take no credit and never overtake data.
#include <gtest/gtest.h>

#include "hw/fabric/StreamRoute.h"
#include "hw/fabric/TokenChannel.h"

using namespace steprdu;
using namespace steprdu::hw;
using step::Token;

namespace {

// Data arrive `data` cycles after they are handed over, their last bytes `serialization` cycles after their
// first; control tokens take `control` cycles; credits take `credit` cycles back.
struct FixedRoute : StreamRoute {
    Cycle data, control, credit, serialization;
    FixedRoute(Cycle d, Cycle c, Cycle r, Cycle s = 0) : data(d), control(c), credit(r), serialization(s) {}
    void carry(TokenChannel& ch, std::uint64_t seq, std::int64_t, bool isData, Cycle at,
               Cycle tailReady) override {
        Cycle lat = isData ? data : control;
        ch.arrived(seq, at + lat, tailReady + lat + (isData ? serialization : 0));
    }
    Cycle creditLatency(const TokenChannel&) const override { return credit; }
};

struct Producer : sc_core::sc_module {
    SC_HAS_PROCESS(Producer);
    Producer(sc_core::sc_module_name n, TokenChannel& c, int elements)
        : sc_module(n), ch(c), count(elements) {
        SC_THREAD(run);
    }
    void run() {
        for (int i = 0; i < count; ++i) {
            ch.takeCredit();
            sent.push_back(now());
            ch.send(Token::data(step::Scalar{std::uint64_t(i)}), 8, now());
        }
        ch.send(Token::stop(1), 0, now());
        ch.send(Token::done(), 0, now());
    }
    TokenChannel& ch;
    int count;
    std::vector<Cycle> sent;
};

struct Consumer : sc_core::sc_module {
    SC_HAS_PROCESS(Consumer);
    Consumer(sc_core::sc_module_name n, TokenChannel& c) : sc_module(n), ch(c) { SC_THREAD(run); }
    void run() {
        for (;;) {
            ch.waitHead();
            Token t = ch.read();
            got.emplace_back(t.kind, now());
            if (t.isData()) tails.push_back(ch.lastTail());
            if (t.isDone()) return;
        }
    }
    TokenChannel& ch;
    std::vector<std::pair<Token::Kind, Cycle>> got;
    std::vector<Cycle> tails;
};

} // namespace

// Capacity 2, data 3 cycles, control 1, credits 3: two elements go at once and arrive at 3; their credits are
// back at 6, so the next two go at 6 and arrive at 9, the last at 12 and 15. The stop and Done sent at 12
// would arrive at 13 but wait for the element ahead of them.
TEST(TokenChannel, CapacityCreditLatencyAndOrdering) {
    initSimTime();
    TokenChannel ch("a[0] -> b[0]", 2);
    FixedRoute route(3, 1, 3);
    ch.setRoute(&route);
    Producer p("p", ch, 5);
    Consumer c("c", ch);
    simulate(); // hw::simulate: tells ASan the thread is back on its own stack
    EXPECT_EQ(p.sent, (std::vector<Cycle>{0, 0, 6, 6, 12}));
    std::vector<std::pair<Token::Kind, Cycle>> want{
        {Token::Kind::Data, 3},  {Token::Kind::Data, 3},  {Token::Kind::Data, 9}, {Token::Kind::Data, 9},
        {Token::Kind::Data, 15}, {Token::Kind::Stop, 15}, {Token::Kind::Done, 15}};
    EXPECT_EQ(c.got, want);
    EXPECT_EQ(ch.maxOccupancy(), 2);
    EXPECT_EQ(ch.tokens(), 7);
    EXPECT_EQ(ch.dataBytes(), 40);
    // Two elements held from 0 to 3, 6 to 9 and one from 12 to 15, over 15 cycles.
    EXPECT_DOUBLE_EQ(ch.meanOccupancy(15), (2.0 * 3 + 2 * 3 + 1 * 3) / 15);
}

// Cut-through: capacity 1, heads 3 cycles after the send, last bytes 8 cycles after the head, control 1,
// credits 2. An element is read as its head arrives (3, 8, 13) and its credit is back 2 cycles later, so the
// next leaves at 5 and 10, before the last bytes of the one ahead are in (11, 16, 21), which the reader
// learns. The stop and Done sent at 10 arrive at 11 but wait for the last bytes ahead of them, at 21.
TEST(TokenChannel, ElementsAreReadAsTheirHeadsArriveAndStopsWaitForTheTails) {
    initSimTime();
    TokenChannel ch("a[0] -> b[0]", 1);
    FixedRoute route(3, 1, 2, 8);
    ch.setRoute(&route);
    Producer p("p", ch, 3);
    Consumer c("c", ch);
    simulate(); // hw::simulate: tells ASan the thread is back on its own stack
    EXPECT_EQ(p.sent, (std::vector<Cycle>{0, 5, 10}));
    std::vector<std::pair<Token::Kind, Cycle>> want{{Token::Kind::Data, 3},
                                                    {Token::Kind::Data, 8},
                                                    {Token::Kind::Data, 13},
                                                    {Token::Kind::Stop, 21},
                                                    {Token::Kind::Done, 21}};
    EXPECT_EQ(c.got, want);
    EXPECT_EQ(c.tails, (std::vector<Cycle>{11, 16, 21}));
}

// Credits for the round trip: depth 1, data 10 cycles, credits 10 back, 8-byte elements (one flit, one
// cycle on the lane). Planned at a quarter of an element per cycle over a round trip of 20, the consumer's
// buffer holds ceil(0.25 x (20 + 1)) = 6: six elements leave at 0, arrive at 10, are read then, and their
// credits are back at 20 for the next six. Planned at a hundredth, it keeps its depth of 1 (ceil(0.21)): one
// element per round trip, at 0, 20, 40, ... (the first element always goes on the depth alone).
namespace {
std::vector<Cycle> sendTimesAtPlannedRate(double rate, std::int64_t& credits) {
    initSimTime();
    TokenChannel ch("a[0] -> b[0]", 1);
    FixedRoute route(10, 1, 10);
    ch.setRoute(&route);
    ch.setLanes(1, 64);
    ch.setRoundTrip(20, rate);
    Producer p("p", ch, 12);
    Consumer c("c", ch);
    simulate(); // hw::simulate: tells ASan the thread is back on its own stack
    credits = ch.creditsOut();
    return p.sent;
}
} // namespace

TEST(TokenChannel, CreditsCoverTheRoundTripAtThePlannedRate) {
    std::int64_t credits = 0;
    EXPECT_EQ(sendTimesAtPlannedRate(0.25, credits),
              (std::vector<Cycle>{0, 0, 0, 0, 0, 0, 20, 20, 20, 20, 20, 20}));
    EXPECT_EQ(credits, 6);
}

TEST(TokenChannel, AStreamPlannedToTrickleKeepsItsDepth) {
    std::int64_t credits = 0;
    EXPECT_EQ(sendTimesAtPlannedRate(0.01, credits),
              (std::vector<Cycle>{0, 20, 40, 60, 80, 100, 120, 140, 160, 180, 200, 220}));
    EXPECT_EQ(credits, 1);
}

// An unbounded channel never stalls its producer.
TEST(TokenChannel, UnboundedNeverStalls) {
    initSimTime();
    TokenChannel ch("a[0] -> b[0]", 0);
    FixedRoute route(5, 1, 1);
    ch.setRoute(&route);
    Producer p("p", ch, 100);
    Consumer c("c", ch);
    simulate(); // hw::simulate: tells ASan the thread is back on its own stack
    EXPECT_EQ(p.sent.back(), 0);
    EXPECT_EQ(c.got.back().second, 5);
    EXPECT_EQ(ch.maxOccupancy(), 100);
}
