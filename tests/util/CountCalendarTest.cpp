#include "util/CountCalendar.h"

#include <queue>
#include <random>

#include <gtest/gtest.h>

using steprdu::CountCalendar;

TEST(CountCalendar, ReleasesWhatIsDueAndKnowsTheEarliest) {
    CountCalendar c;
    c.add(10);
    c.add(12);
    c.add(10);
    EXPECT_EQ(c.size(), 3);
    EXPECT_EQ(c.earliest(), 10);
    EXPECT_EQ(c.releaseUpTo(9), 0);
    EXPECT_EQ(c.releaseUpTo(10), 2);
    EXPECT_EQ(c.earliest(), 12);
    c.add(5000); // far past the ring: it grows, the 12 stays where it was
    EXPECT_EQ(c.releaseUpTo(4999), 1);
    EXPECT_EQ(c.earliest(), 5000);
    c.add(7); // before what was released: still counted, and the earliest
    EXPECT_EQ(c.earliest(), 7);
    EXPECT_EQ(c.releaseUpTo(100000), 2);
    EXPECT_TRUE(c.empty());
}

// The heap it replaces, on a random mix of adds and releases: the same counts and earliest times.
TEST(CountCalendar, BehavesAsAMinHeap) {
    std::mt19937_64 rng(3);
    CountCalendar c;
    std::priority_queue<std::int64_t, std::vector<std::int64_t>, std::greater<>> heap;
    std::int64_t now = 0;
    for (int step = 0; step < 20000; ++step) {
        if (rng() % 3) {
            const std::int64_t t = now + static_cast<std::int64_t>(rng() % 300) - 20;
            c.add(t);
            heap.push(t);
        } else {
            now += static_cast<std::int64_t>(rng() % 7);
            int popped = 0;
            while (!heap.empty() && heap.top() <= now) {
                heap.pop();
                ++popped;
            }
            ASSERT_EQ(c.releaseUpTo(now), popped) << "step " << step;
        }
        ASSERT_EQ(c.size(), static_cast<int>(heap.size()));
        if (!heap.empty()) {
            ASSERT_EQ(c.earliest(), heap.top()) << "step " << step;
        }
    }
}
