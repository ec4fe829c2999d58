#pragma once
#include <optional>
#include <string>
#include <vector>

namespace steprdu {

std::size_t editDistance(const std::string& a, const std::string& b);

// The candidate closest to `word`, if it is close enough to be a plausible typo.
std::optional<std::string> nearestWord(const std::string& word, const std::vector<std::string>& candidates);

std::vector<std::string> split(const std::string& s, char sep);
// `s` with every character other than a letter, a digit or '_' written as '_' (a SystemC object name).
std::string identifier(const std::string& s);
std::string trim(const std::string& s);

// Strict integer parse: the whole string must be a (signed) decimal integer.
std::optional<long long> parseInt(const std::string& s);
std::optional<double> parseDouble(const std::string& s);
// A decimal or 0x-hexadecimal integer, the forms addresses come in.
std::optional<long long> parseAddress(const std::string& s);
// A byte count: an integer with an optional binary suffix K, M, G, KiB, MiB or GiB ("64MiB").
std::optional<long long> parseByteSize(const std::string& s);

} // namespace steprdu
