// The RDN packet model against numbers derived by hand: zero-load latency, link sharing, the credit
// round-trip rule; each in packet mode and in the flit-level mode that checks the packet abstraction.
#include <map>

#include <gtest/gtest.h>

#include "hw/config/HwConfigLoader.h"
#include "hw/fabric/RdnMesh.h"
#include "testbenches/units/MeshTraffic.h"
#include "util/ForkRun.h"

using namespace steprdu;
using namespace steprdu::hw;

namespace {

struct Recorder : PacketSink {
    struct Arrival {
        Cycle head, tail;
    };
    std::map<std::uint64_t, std::vector<Arrival>> got;
    void delivered(std::uint64_t tag, int dest, Cycle head, Cycle tail) override {
        got[tag].resize(std::max<std::size_t>(got[tag].size(), dest + 1));
        got[tag][dest] = {head, tail};
    }
};

// Sends `packets` packets of `flits` flits on `flow` at cycle `at`, from a process at that cycle; they may
// enter the fabric at `enter` (default: at once).
struct Sender : sc_core::sc_module {
    SC_HAS_PROCESS(Sender);
    Sender(sc_core::sc_module_name n, RdnMesh& m, Recorder& r, int flow, int packets, int flits, Cycle at,
           std::uint64_t tag0, Cycle enter = -1)
        : sc_module(n), mesh(m), rec(r), flow(flow), packets(packets), flits(flits), at(at), tag0(tag0),
          enter(enter < 0 ? at : enter) {
        SC_THREAD(run);
    }
    void run() {
        waitUntil(at);
        for (int i = 0; i < packets; ++i)
            mesh.send(flow, std::int64_t(flits) * mesh.options().flitBytes, enter, enter, &rec, tag0 + i);
    }
    RdnMesh& mesh;
    Recorder& rec;
    int flow, packets, flits;
    Cycle at;
    std::uint64_t tag0;
    Cycle enter;
};

MeshOptions mesh8(bool flitLevel, int buffer = 4) {
    MeshOptions o;
    o.rows = o.cols = 8;
    o.bufferFlits = buffer;
    o.flitLevel = flitLevel;
    return o;
}

class RdnMeshModes : public ::testing::TestWithParam<bool> {};

// One packet of F flits over H switches, no contention: the tail arrives H x (switch + link) + F cycles after
// the head entered. (0,0) -> (3,5) crosses 3 + 5 + 1 = 9 switches; 16 flits; sent at cycle 10:
// 10 + 9 x 2 + 16 = 44, and the head 10 + 9 x 2 = 28.
TEST_P(RdnMeshModes, OnePacketTakesHopsTimesSwitchPlusLinkPlusSerialization) {
    initSimTime();
    RdnMesh mesh("rdn", mesh8(GetParam()));
    int a = mesh.attach(0, 0, "a"), b = mesh.attach(3, 5, "b");
    int flow = mesh.addFlow(a, {b});
    Recorder rec;
    Sender s("s", mesh, rec, flow, 1, 16, 10, 0);
    simulate(); // hw::simulate: tells ASan the thread is back on its own stack
    ASSERT_EQ(rec.got.count(0), 1u);
    EXPECT_EQ(mesh.hops(a, b), 9);
    EXPECT_EQ(rec.got[0][0].tail, 10 + 9 * 2 + 16);
    EXPECT_EQ(rec.got[0][0].head, 10 + 9 * 2);
}

// A flow may cut its messages into packets of its own length (a forking multicast's, Chip): 16 flits in
// packets of 4 are four packets where the mesh's default sends one, and uncontended, back to back, they
// arrive as the one would: tail 10 + 9 x 2 + 16 = 44.
TEST(RdnMesh, AFlowCutsItsMessagesIntoPacketsOfItsOwnLength) {
    initSimTime();
    RdnMesh mesh("rdn", mesh8(false));
    int a = mesh.attach(0, 0, "a"), b = mesh.attach(3, 5, "b"), c = mesh.attach(7, 7, "c");
    int cut = mesh.addFlow(a, {b}, {}, 4), whole = mesh.addFlow(a, {c});
    EXPECT_EQ(mesh.partsFor(cut, 16 * 64), 4);
    EXPECT_EQ(mesh.partsFor(cut, 15 * 64), 4);
    EXPECT_EQ(mesh.partsFor(whole, 16 * 64), 1);
    Recorder rec;
    Sender s("s", mesh, rec, cut, 1, 16, 10, 0);
    simulate();
    ASSERT_EQ(rec.got.count(0), 1u);
    EXPECT_EQ(rec.got[0][0].tail, 10 + 9 * 2 + 16);
    EXPECT_EQ(mesh.packetHops(), 4 * 10); // four packets over 9 switch links and the ejection
}

// Two flows share the link (0,1)->(0,2) and (0,2)->(0,3); each offers a full link's worth. Round-robin
// arbitration gives each half the link: 400 packets of 4 flits take 2 x 1600 cycles for both.
TEST_P(RdnMeshModes, TwoFlowsSharingALinkGetHalfItsBandwidthEach) {
    initSimTime();
    RdnMesh mesh("rdn", mesh8(GetParam()));
    int a = mesh.attach(0, 0, "a"), b = mesh.attach(0, 1, "b"), d1 = mesh.attach(0, 3, "d1"),
        d2 = mesh.attach(1, 3, "d2");
    int fa = mesh.addFlow(a, {d1}), fb = mesh.addFlow(b, {d2});
    Recorder rec;
    const int n = 25, flits = 64;
    Sender sa("sa", mesh, rec, fa, n, flits, 0, 0);
    Sender sb("sb", mesh, rec, fb, n, flits, 0, 100000);
    simulate(); // hw::simulate: tells ASan the thread is back on its own stack
    Cycle lastA = 0, lastB = 0;
    for (int i = 0; i < n; ++i) {
        lastA = std::max(lastA, rec.got.at(i)[0].tail);
        lastB = std::max(lastB, rec.got.at(100000 + i)[0].tail);
    }
    // Each flow delivered n x flits flits; alone it would take n x flits cycles.
    double rateA = double(n * flits) / lastA, rateB = double(n * flits) / lastB;
    EXPECT_NEAR(rateA, 0.5, 0.01) << lastA;
    EXPECT_NEAR(rateB, 0.5, 0.01) << lastB;
}

// Credit round trip RTT = link + switch + credit + 1 = 4 cycles. A buffer of B < RTT flits lets a link carry
// only B / RTT flits per cycle: 1/4, 2/4, 3/4, then full rate from B = 4. The flit-level mode gets there
// from the credits alone; the packet mode applies the rule per link and rounds each packet's occupancy up
// to whole cycles (64 flits: 86 cycles for 85.3 at B = 3, 0.8% slow).
TEST_P(RdnMeshModes, BuffersSmallerThanTheCreditRoundTripCutThroughput) {
    initSimTime();
    struct Case {
        int buffer;
        std::unique_ptr<RdnMesh> mesh;
        std::unique_ptr<Recorder> rec;
        std::unique_ptr<Sender> sender;
    };
    std::vector<Case> cases;
    const int n = 50, flits = 64;
    for (int buffer : {1, 2, 3, 4, 8}) {
        Case c;
        c.buffer = buffer;
        c.mesh =
            std::make_unique<RdnMesh>(("rdn" + std::to_string(buffer)).c_str(), mesh8(GetParam(), buffer));
        int a = c.mesh->attach(0, 0, "a"), b = c.mesh->attach(0, 4, "b");
        int f = c.mesh->addFlow(a, {b});
        c.rec = std::make_unique<Recorder>();
        c.sender = std::make_unique<Sender>(("s" + std::to_string(buffer)).c_str(), *c.mesh, *c.rec, f, n,
                                            flits, 0, 0);
        cases.push_back(std::move(c));
    }
    simulate(); // hw::simulate: tells ASan the thread is back on its own stack
    for (auto& c : cases) {
        Cycle last = 0;
        for (auto& [tag, arr] : c.rec->got)
            last = std::max(last, arr[0].tail);
        double rate = double(n * flits) / last;
        double expected = std::min(1.0, c.buffer / 4.0);
        EXPECT_NEAR(rate, expected, 0.02 * expected) << "buffer " << c.buffer << ", last " << last;
    }
}

// Wormhole backpressure over several hops (switch, link and credit 1 cycle, 4-flit buffers). Y sends 200
// flits (0,5) -> (0,6) at cycle 0: it takes (0,5) east at 1, its tail arrives at 0 + 2 x 2 + 200 = 204. X
// sends 64 flits (0,0) -> (0,7) at cycle 0: its head reaches (0,5) at 11 and takes (0,5) east once Y's tail
// has crossed, at 201 (tail 201 + 2 + 2 + 1 + 64 = 270); meanwhile its body fills the buffers of
// (0,2)..(0,5), 16 flits, so its tail still waits before (0,1) east. Z sends 4 flits (0,1) -> (0,3) at cycle
// 20 over that link: X's flit 63 crosses it after flit 63 - 16 = 47 has crossed (0,5) east (201 + 47 = 248),
// one flit time and four credit loops of 2 cycles later: 257. Z takes it then, (0,2) east at 259, ejects at
// 261: head 262, tail 266. (The packet model used to free (0,1) east once X's head had moved one hop on: Z's
// tail at 76.)
TEST_P(RdnMeshModes, AHeadBlockedHopsAwayHoldsTheLinksBehindIt) {
    initSimTime();
    RdnMesh mesh("rdn", mesh8(GetParam()));
    const int x = mesh.attach(0, 0, "x"), y = mesh.attach(0, 5, "y"), z = mesh.attach(0, 1, "z"),
              dx = mesh.attach(0, 7, "dx"), dy = mesh.attach(0, 6, "dy"), dz = mesh.attach(0, 3, "dz");
    Recorder rec;
    Sender sy("sy", mesh, rec, mesh.addFlow(y, {dy}), 1, 200, 0, 0);
    Sender sx("sx", mesh, rec, mesh.addFlow(x, {dx}), 1, 64, 0, 1);
    Sender sz("sz", mesh, rec, mesh.addFlow(z, {dz}), 1, 4, 20, 2);
    simulate(); // hw::simulate: tells ASan the thread is back on its own stack
    EXPECT_EQ(rec.got.at(0)[0].tail, 204);
    EXPECT_EQ(rec.got.at(1)[0].tail, 270);
    EXPECT_EQ(rec.got.at(2)[0].head, 262);
    EXPECT_EQ(rec.got.at(2)[0].tail, 266);
}

// An endpoint injects its packets in order of the cycle they may leave, not of when they were sent. At cycle
// 0 a sends 16 flits to (0,3) that may leave at cycle 50 (an AGCU that knows when a tile's data return); at
// cycle 10 it sends 4 flits to (3,0) that may leave at once. Those go first, over 4 switches: head
// 10 + 4 x 2 = 18, tail 22 (they used to wait behind the first: head 74). The first is not held up: head
// 50 + 4 x 2 = 58, tail 74.
TEST_P(RdnMeshModes, APacketReadySoonerLeavesItsSourceFirst) {
    initSimTime();
    RdnMesh mesh("rdn", mesh8(GetParam()));
    const int a = mesh.attach(0, 0, "a"), b = mesh.attach(0, 3, "b"), c = mesh.attach(3, 0, "c");
    Recorder rec;
    Sender late("late", mesh, rec, mesh.addFlow(a, {b}), 1, 16, 0, 0, 50);
    Sender soon("soon", mesh, rec, mesh.addFlow(a, {c}), 1, 4, 10, 1);
    simulate(); // hw::simulate: tells ASan the thread is back on its own stack
    EXPECT_EQ(rec.got.at(1)[0].head, 18);
    EXPECT_EQ(rec.got.at(1)[0].tail, 22);
    EXPECT_EQ(rec.got.at(0)[0].head, 58);
    EXPECT_EQ(rec.got.at(0)[0].tail, 74);
}

INSTANTIATE_TEST_SUITE_P(PacketAndFlitLevel, RdnMeshModes, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "FlitLevel" : "Packet"; });

} // namespace

// Uniform random traffic on an 8 x 8 mesh with dimension-order routes and credit flow control: below
// saturation the network accepts what is offered at close to the zero-load latency; past it the accepted
// throughput stays flat (under the 4 / k = 0.5 flits/node/cycle that the bisection allows) while latency
// grows without bound. Each rate runs in its own process.
TEST(RdnMeshTraffic, UniformRandomSaturatesAsADimensionOrderMeshShould) {
    HwConfig cfg = loadHwConfig("step_eval");
    auto at = [&](double rate, bool flitLevel) {
        TrafficOptions o;
        o.rate = rate;
        o.flitLevel = flitLevel;
        o.cycles = 5000;
        return runInChild([&] { return runMeshTraffic(cfg, o); });
    };
    for (bool flitLevel : {false, true}) {
        auto low = at(0.05, flitLevel), mid = at(0.15, flitLevel), high = at(0.45, flitLevel),
             higher = at(0.6, flitLevel);
        const double zeroLoad = low["zero_load_latency_cycles"].get<double>();
        // Two distinct random nodes of an 8 x 8 mesh are 2 x (8^2 - 1) / (3 x 8) x 64 / 63 = 5.33 links apart
        // on average, so a packet crosses 6.33 switches at 2 cycles each, plus its 4 flits.
        EXPECT_NEAR(zeroLoad, 2 * (2 * 63.0 / 24 * 64 / 63 + 1) + 4, 1e-9);
        for (const auto* r : {&low, &mid}) {
            EXPECT_NEAR((*r)["accepted_flits_per_node_cycle"].get<double>(),
                        (*r)["offered_flits_per_node_cycle"].get<double>(),
                        0.03 * (*r)["rate"].get<double>());
            EXPECT_FALSE((*r)["saturated"].get<bool>());
        }
        EXPECT_NEAR(low["latency_mean_cycles"].get<double>(), zeroLoad, 0.1 * zeroLoad);
        const double sat = high["accepted_flits_per_node_cycle"].get<double>();
        EXPECT_LT(sat, 0.45);
        EXPECT_LT(sat, 0.5);
        EXPECT_GT(sat, 0.2);
        EXPECT_NEAR(higher["accepted_flits_per_node_cycle"].get<double>(), sat, 0.1 * sat);
        EXPECT_TRUE(high["saturated"].get<bool>());
        EXPECT_TRUE(higher["saturated"].get<bool>());
        EXPECT_LT(low["latency_mean_cycles"].get<double>(), mid["latency_mean_cycles"].get<double>());
        EXPECT_LT(mid["latency_mean_cycles"].get<double>(), high["latency_mean_cycles"].get<double>());
        EXPECT_GT(high["latency_mean_cycles"].get<double>(), 10 * zeroLoad);
    }
}

// Routes follow the configured dimension order. (0,0) -> (2,2) and (0,1) -> (1,2) share two links along row 0
// and column 2 when routed along the row first, and none when routed along the column first: each flow then
// gets its whole links.
TEST(RdnMeshRouting, TheDimensionOrderDecidesWhichLinksFlowsShare) {
    initSimTime();
    struct Case {
        std::unique_ptr<RdnMesh> mesh;
        std::unique_ptr<Recorder> rec;
        std::unique_ptr<Sender> a, b;
    };
    std::vector<Case> cases;
    const int n = 100, flits = 8;
    for (bool columnFirst : {false, true}) {
        MeshOptions o = mesh8(false);
        o.columnFirst = columnFirst;
        Case c;
        c.mesh = std::make_unique<RdnMesh>(columnFirst ? "yx" : "xy", o);
        int a = c.mesh->attach(0, 0, "a"), b = c.mesh->attach(0, 1, "b"), da = c.mesh->attach(2, 2, "da"),
            db = c.mesh->attach(1, 2, "db");
        c.rec = std::make_unique<Recorder>();
        std::string s = columnFirst ? "yx" : "xy";
        c.a = std::make_unique<Sender>((s + "a").c_str(), *c.mesh, *c.rec, c.mesh->addFlow(a, {da}), n, flits,
                                       0, 0);
        c.b = std::make_unique<Sender>((s + "b").c_str(), *c.mesh, *c.rec, c.mesh->addFlow(b, {db}), n, flits,
                                       0, 1000);
        EXPECT_EQ(c.mesh->hops(a, da), 5);
        cases.push_back(std::move(c));
    }
    simulate(); // hw::simulate: tells ASan the thread is back on its own stack
    for (std::size_t k = 0; k < cases.size(); ++k) {
        Cycle last = 0;
        for (auto& [tag, arr] : cases[k].rec->got)
            last = std::max(last, arr[0].tail);
        double rate = double(2 * n * flits) / last; // both flows' flits per cycle
        EXPECT_NEAR(rate, k == 0 ? 1.0 : 2.0, 0.03 * (k == 0 ? 1.0 : 2.0)) << (k == 0 ? "xy" : "yx");
    }
}
