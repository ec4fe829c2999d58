// Error messages quote inputs printably: control bytes and invalid UTF-8 become escapes, valid UTF-8 stays.
#include <gtest/gtest.h>

#include "util/Error.h"

namespace steprdu {
namespace {

TEST(Printable, EscapesControlBytesAndInvalidUtf8) {
    EXPECT_EQ(printable("plain text: 42"), "plain text: 42");
    EXPECT_EQ(printable("a\nb\tc\r"), "a\\nb\\tc\\r");
    EXPECT_EQ(printable(std::string("nul\0x", 5)), "nul\\x00x");
    EXPECT_EQ(printable("\x1b[31m\x7f"), "\\x1b[31m\\x7f");
    EXPECT_EQ(printable("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
              "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    EXPECT_EQ(printable("\xff\xfe"), "\\xff\\xfe");
    EXPECT_EQ(printable("\xc3"), "\\xc3");                   // truncated sequence
    EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");          // overlong '/'
    EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80"); // a UTF-16 surrogate
}

TEST(Printable, BadInputMessagesAreEscaped) {
    BadInput e("trace.csv:3: field 'op': expected R or W, found '\x01\xff'");
    EXPECT_STREQ(e.what(), "trace.csv:3: field 'op': expected R or W, found '\\x01\\xff'");
}

} // namespace
} // namespace steprdu
