#include "traces/SyntheticTraces.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/Error.h"

namespace steprdu::traces {

namespace {

// Unbiased integer in [0, n), n > 0, by rejecting the few raw values that would favour small results.
std::uint64_t uniformBelow(std::mt19937_64& rng, std::uint64_t n) {
    const std::uint64_t threshold = (0 - n) % n;
    std::uint64_t x;
    do
        x = rng();
    while (x < threshold);
    return x % n;
}

void require(bool ok, const char* generator, const char* what, const std::string& expected,
             const std::string& found) {
    if (!ok) throw BadInput(fmt::format("{}: {}; {}", generator, what, expectedFound(expected, found)));
}

} // namespace

ExpertRouting syntheticRouting(int batch, int numExperts, int topK, unsigned long long seed, double skew) {
    require(batch >= 0, "syntheticRouting", "batch", ">= 0", std::to_string(batch));
    require(numExperts >= 1, "syntheticRouting", "numExperts", ">= 1", std::to_string(numExperts));
    require(topK >= 1 && topK <= numExperts, "syntheticRouting", "topK", fmt::format("1..{}", numExperts),
            std::to_string(topK));
    require(std::isfinite(skew) && skew >= 0, "syntheticRouting", "skew", "a finite value >= 0",
            fmt::format("{}", skew));

    std::mt19937_64 rng(seed);
    // Which expert holds which popularity rank: a Fisher-Yates shuffle (std::shuffle's order is unspecified).
    std::vector<int> expertOfRank(numExperts);
    for (int i = 0; i < numExperts; ++i)
        expertOfRank[i] = i;
    for (int i = numExperts - 1; i > 0; --i)
        std::swap(expertOfRank[i], expertOfRank[uniformBelow(rng, i + 1)]);
    // Integer weights: a last-bit difference in pow() between maths libraries then cannot change a pick.
    // At least 1, so that every expert stays reachable and a row can always be completed.
    std::vector<std::uint64_t> weight(numExperts);
    for (int r = 0; r < numExperts; ++r) {
        const long long w = std::llround(std::ldexp(1.0, 32) / std::pow(r + 1.0, skew));
        weight[expertOfRank[r]] = static_cast<std::uint64_t>(std::max(w, 1LL));
    }

    ExpertRouting out{fmt::format("syntheticRouting(batch={}, experts={}, topk={}, seed={}, skew={})", batch,
                                  numExperts, topK, seed, skew),
                      numExperts,
                      topK,
                      {}};
    out.rows.reserve(batch);
    for (int t = 0; t < batch; ++t) {
        // Weighted draws without replacement: a chosen expert's weight drops to 0 for the rest of the row.
        std::vector<std::uint64_t> left = weight;
        std::uint64_t total = 0;
        for (auto w : left)
            total += w;
        std::vector<int> row;
        row.reserve(topK);
        for (int j = 0; j < topK; ++j) {
            std::uint64_t x = uniformBelow(rng, total);
            int e = 0;
            while (x >= left[e])
                x -= left[e++];
            row.push_back(e);
            total -= left[e];
            left[e] = 0;
        }
        out.rows.push_back(std::move(row));
    }
    return out;
}

KvLengths syntheticKvLengths(int batch, unsigned long long seed, long long meanLen, long long stdevLen,
                             long long minLen, long long maxLen) {
    require(batch >= 0, "syntheticKvLengths", "batch", ">= 0", std::to_string(batch));
    require(stdevLen >= 0, "syntheticKvLengths", "stdevLen", ">= 0", std::to_string(stdevLen));
    require(minLen >= 0, "syntheticKvLengths", "minLen", ">= 0", std::to_string(minLen));
    require(maxLen >= minLen, "syntheticKvLengths", "maxLen", fmt::format(">= minLen ({})", minLen),
            std::to_string(maxLen));

    std::mt19937_64 rng(seed);
    KvLengths out{fmt::format("syntheticKvLengths(batch={}, seed={}, mean={}, stdev={}, min={}, max={})",
                              batch, seed, meanLen, stdevLen, minLen, maxLen),
                  {}};
    out.lengths.reserve(batch);
    for (int i = 0; i < batch; ++i) {
        // The sum of 12 uniforms on [0,1) has mean 6 and variance 1. With 32-bit uniforms the sum and the
        // scaling to z are exact in double, leaving a single correctly rounded multiply.
        std::uint64_t sum = 0;
        for (int j = 0; j < 12; ++j)
            sum += rng() >> 32;
        const double z = std::ldexp(static_cast<double>(sum) - std::ldexp(6.0, 32), -32);
        const long long len = meanLen + std::llround(static_cast<double>(stdevLen) * z);
        out.lengths.push_back(std::clamp(len, minLen, maxLen));
    }
    return out;
}

// Numbers go through fmt, which ignores the stream's locale: an imbued locale with digit grouping
// would otherwise turn 1024 into "1,024" and break the CSV.
void writeExpertRouting(const ExpertRouting& routing, std::ostream& out) {
    std::string line = "token";
    for (int j = 0; j < routing.topK; ++j)
        line += fmt::format(",topk{}", j);
    out << line << '\n';
    for (std::size_t t = 0; t < routing.rows.size(); ++t)
        out << fmt::format("{},{}\n", t, fmt::join(routing.rows[t], ","));
}

void writeKvLengths(const KvLengths& kv, std::ostream& out) {
    out << "request,kv_len\n";
    for (std::size_t i = 0; i < kv.lengths.size(); ++i)
        out << fmt::format("{},{}\n", i, kv.lengths[i]);
}

} // namespace steprdu::traces
