#include "util/Strings.h"

#include <gtest/gtest.h>

using namespace steprdu;

TEST(Strings, EditDistanceCountsSingleEdits) {
    EXPECT_EQ(editDistance("channels", "channels"), 0u);
    EXPECT_EQ(editDistance("chanels", "channels"), 1u);
    EXPECT_EQ(editDistance("kitten", "sitting"), 3u);
}

TEST(Strings, NearestWordSuggestsTyposOnly) {
    std::vector<std::string> keys{"channels", "latency_cycles", "request_bytes"};
    EXPECT_EQ(nearestWord("chanels", keys).value(), "channels");
    EXPECT_FALSE(nearestWord("zzzzzzzzzzzzzzzzzzzz", keys).has_value());
}

TEST(Strings, ParseIntRejectsTrailingGarbage) {
    EXPECT_EQ(parseInt("42").value(), 42);
    EXPECT_EQ(parseInt("-3").value(), -3);
    EXPECT_FALSE(parseInt("4x").has_value());
    EXPECT_FALSE(parseInt("").has_value());
}
