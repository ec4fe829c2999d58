// The HBM node's request window against its definition: the slots in use are those added and not back by
// the last release; a packet fits if none is in use or it fits beside them.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "hw/mem/step_node/RequestWindow.h"

using steprdu::hw::mem::RequestWindow;

namespace {
// The definition, one slot at a time.
struct Slots {
    std::vector<std::int64_t> back;
    void release(std::int64_t t) {
        back.erase(std::remove_if(back.begin(), back.end(), [t](std::int64_t b) { return b <= t; }),
                   back.end());
    }
    bool allows(int count, int cap) const {
        return back.empty() || static_cast<std::int64_t>(back.size()) + count <= cap;
    }
};
} // namespace

TEST(RequestWindow, AnswersAsItsDefinition) {
    // Caps from a window that fills at once to one no load here comes near (which only logs and drops
    // blocks); latencies short and long against the cap, so that some windows start counting per cycle part
    // way through and others never do.
    int counted = 0, far = 0;
    for (int cap : {1, 8, 64, 1000, 5000, 100000})
        for (int spread : {4, 300, 5000}) {
            std::mt19937 rng(static_cast<unsigned>(cap * 31 + spread));
            auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
            RequestWindow w(cap);
            Slots ref;
            std::int64_t now = 0, maxInUse = 0;
            for (int step = 0; step < 60000; ++step) {
                now += pick(0, 2);
                if (pick(0, 3) > 0) {
                    w.release(now);
                    ref.release(now);
                }
                // What allows() trusts without counting: never below the slots in use.
                ASSERT_GE(w.bound(), static_cast<std::int64_t>(ref.back.size())) << "step " << step;
                const int count = pick(1, 4);
                const bool allowed = ref.allows(count, cap);
                ASSERT_EQ(w.allows(count), allowed)
                    << "cap " << cap << " spread " << spread << " step " << step;
                if (!allowed) {
                    ASSERT_EQ(w.earliest(), *std::min_element(ref.back.begin(), ref.back.end()));
                    continue;
                }
                // Slots come back after the last release (as the node's do: a request is delivered after
                // the cycle that serves it), often several at one cycle.
                const std::int64_t t = now + 1 + pick(0, spread);
                w.add(t, count);
                ref.back.insert(ref.back.end(), count, t);
                maxInUse = std::max<std::int64_t>(maxInUse, static_cast<std::int64_t>(ref.back.size()));
            }
            (2 * maxInUse > cap ? counted : far) += 1;
        }
    EXPECT_GT(counted, 3); // both ways of keeping the slots were exercised
    EXPECT_GT(far, 3);
}

TEST(RequestWindow, AWideWindowForgetsWhatIsBack) {
    // A window far from its cap keeps only the blocks of 256 slots not yet all back: a million slots
    // streamed through one that holds 2000 at a time leave a bound of at most 2000 + 256, and every packet
    // is allowed without counting.
    RequestWindow w(65536);
    for (std::int64_t c = 0; c < 500000; ++c) {
        w.release(c);
        ASSERT_TRUE(w.allows(2));
        w.add(c + 1000, 2);
    }
    // In use after the release at 499999: the slots of cycles 499000 to 499999, back at 500000 to 500999.
    EXPECT_GE(w.bound(), 2000);
    EXPECT_LE(w.bound(), 2000 + 256);
    EXPECT_TRUE(w.allows(65536 - 2000));
    EXPECT_FALSE(w.allows(65536 - 1999));
    EXPECT_EQ(w.bound(), 2000); // counted, to refuse
    EXPECT_EQ(w.earliest(), 500000);
}

TEST(RequestWindow, ABlockIsDroppedOnceAllItsSlotsAreBack) {
    // 256 slots back at 10 fill the first block; one back at 20 starts the next. Released at 9, all 257
    // are in use; at 10 the first block is all back and goes, and the bound is the one slot left.
    RequestWindow w(65536);
    w.add(10, 256);
    w.add(20, 1);
    w.release(9);
    EXPECT_EQ(w.bound(), 257);
    w.release(10);
    EXPECT_EQ(w.bound(), 1);
    // A block not yet complete stays, whatever is back: its bound counts slots that are back.
    RequestWindow v(65536);
    v.add(5, 100);
    v.add(50, 1);
    v.release(40);
    EXPECT_EQ(v.bound(), 101);
    EXPECT_FALSE(v.allows(65536)); // counting finds the one slot in use
    EXPECT_EQ(v.bound(), 1);
    EXPECT_EQ(v.earliest(), 50);
}
