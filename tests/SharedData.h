#pragma once
// Tests that read ../shared (real traces, reference results) skip when it is absent, as in a user's clone.
// CI sets STEPRDU_REQUIRE_SHARED=1, which turns that skip into a failure.
#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace steprdu::test {

inline std::string sharedPath(const std::string& rel) {
    return std::string(STEPRDU_SHARED_DIR) + "/" + rel;
}

inline bool sharedRequired() {
    const char* v = std::getenv("STEPRDU_REQUIRE_SHARED");
    return v && std::string(v) != "" && std::string(v) != "0";
}

} // namespace steprdu::test

// Use at the top of a test body that needs ../shared/<rel>.
#define STEPRDU_NEED_SHARED(rel)                                                                             \
    do {                                                                                                     \
        if (!std::filesystem::exists(steprdu::test::sharedPath(rel))) {                                      \
            if (steprdu::test::sharedRequired())                                                             \
                FAIL() << "STEPRDU_REQUIRE_SHARED is set but " << steprdu::test::sharedPath(rel)             \
                       << " is missing";                                                                     \
            GTEST_SKIP() << "../shared is absent (" << steprdu::test::sharedPath(rel)                        \
                         << "); this test needs the project's shared data beside the clone";                 \
        }                                                                                                    \
    } while (0)
