#include "util/Strings.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>

namespace steprdu {

std::size_t editDistance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::optional<std::string> nearestWord(const std::string& word, const std::vector<std::string>& candidates) {
    std::optional<std::string> best;
    std::size_t bestDist = 0;
    for (const auto& c : candidates) {
        std::size_t d = editDistance(word, c);
        if (!best || d < bestDist) {
            best = c;
            bestDist = d;
        }
    }
    // Beyond about half the word's length the suggestion is noise rather than help.
    if (best && bestDist <= std::max<std::size_t>(2, word.size() / 2)) return best;
    return std::nullopt;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
        if (c == sep) {
            out.push_back(cur);
            cur.clear();
        } else {
            cur.push_back(c);
        }
    }
    out.push_back(cur);
    return out;
}

std::string identifier(const std::string& s) {
    std::string out;
    for (char c : s)
        out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return out;
}

std::string trim(const std::string& s) {
    auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    auto e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

std::optional<long long> parseInt(const std::string& s) {
    if (s.empty()) return std::nullopt;
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (errno != 0 || end != s.c_str() + s.size()) return std::nullopt;
    return v;
}

std::optional<long long> parseAddress(const std::string& s) {
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        errno = 0;
        char* end = nullptr;
        unsigned long long v = std::strtoull(s.c_str() + 2, &end, 16);
        if (errno != 0 || end != s.c_str() + s.size() || s[2] == '-' || s[2] == '+' ||
            v > static_cast<unsigned long long>(std::numeric_limits<long long>::max()))
            return std::nullopt;
        return static_cast<long long>(v);
    }
    return parseInt(s);
}

std::optional<long long> parseByteSize(const std::string& s) {
    static const std::pair<const char*, long long> units[] = {{"KiB", 1LL << 10}, {"MiB", 1LL << 20},
                                                              {"GiB", 1LL << 30}, {"K", 1LL << 10},
                                                              {"M", 1LL << 20},   {"G", 1LL << 30}};
    for (const auto& [suffix, scale] : units) {
        const std::size_t n = std::char_traits<char>::length(suffix);
        if (s.size() > n && s.compare(s.size() - n, n, suffix) == 0) {
            auto v = parseInt(s.substr(0, s.size() - n));
            if (!v || *v > std::numeric_limits<long long>::max() / scale) return std::nullopt;
            return *v * scale;
        }
    }
    return parseInt(s);
}

std::optional<double> parseDouble(const std::string& s) {
    if (s.empty()) return std::nullopt;
    errno = 0;
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (errno != 0 || end != s.c_str() + s.size()) return std::nullopt;
    return v;
}

} // namespace steprdu
