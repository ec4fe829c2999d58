#include "util/Json.h"

#include <gtest/gtest.h>

#include "util/Error.h"

using steprdu::BadInput;
using steprdu::jsonInteger;

TEST(JsonInteger, TakesIntegersInRange) {
    EXPECT_EQ(jsonInteger(nlohmann::json(7), "rows", 0), 7);
    EXPECT_EQ(jsonInteger(nlohmann::json(-3), "offset"), -3);
    EXPECT_EQ(jsonInteger(nlohmann::json(INT64_MAX), "seed", 0), INT64_MAX);
}

// The fuzzer's finding: a float far outside an integer's range was cast, which is undefined behaviour.
TEST(JsonInteger, RejectsFloatsOutOfRangeAndOtherTypesNamingTheKey) {
    for (const char* text : {"6.44444e+54", "1.5", "\"3\"", "null", "[1]", "18446744073709551615", "-1"}) {
        try {
            jsonInteger(nlohmann::json::parse(text), "graph: tensor 'w': rows", 0);
            ADD_FAILURE() << text << " was accepted";
        } catch (const BadInput& e) {
            EXPECT_NE(std::string(e.what()).find("graph: tensor 'w': rows: expected an integer in [0, "),
                      std::string::npos)
                << e.what();
        }
    }
}
