#include "util/Error.h"

#include <fmt/format.h>

namespace steprdu {

std::string printable(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char c = byte(i);
        if (c == '\n' || c == '\t' || c == '\r') {
            out += c == '\n' ? "\\n" : c == '\t' ? "\\t" : "\\r";
            ++i;
            continue;
        }
        if (c < 0x20 || c == 0x7f) {
            out += fmt::format("\\x{:02x}", c);
            ++i;
            continue;
        }
        if (c < 0x80) {
            out += static_cast<char>(c);
            ++i;
            continue;
        }
        // A UTF-8 sequence is kept whole when it is well formed (no overlong forms or surrogates).
        const int len = c >= 0xc2 && c <= 0xdf   ? 2
                        : c >= 0xe0 && c <= 0xef ? 3
                        : c >= 0xf0 && c <= 0xf4 ? 4
                                                 : 0;
        bool ok = len > 0 && i + len <= s.size();
        for (int k = 1; ok && k < len; ++k)
            ok = (byte(i + k) & 0xc0) == 0x80;
        if (ok && len == 3) ok = !(c == 0xe0 && byte(i + 1) < 0xa0) && !(c == 0xed && byte(i + 1) >= 0xa0);
        if (ok && len == 4) ok = !(c == 0xf0 && byte(i + 1) < 0x90) && !(c == 0xf4 && byte(i + 1) >= 0x90);
        if (!ok) {
            out += fmt::format("\\x{:02x}", c);
            ++i;
            continue;
        }
        out.append(s, i, len);
        i += len;
    }
    return out;
}

std::string expectedFound(const std::string& expected, const std::string& found) {
    return fmt::format("expected {}, found {}", expected, found);
}

} // namespace steprdu
