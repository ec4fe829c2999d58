#include "traces/ExpertRouting.h"

#include <fmt/format.h>

#include "traces/TraceCsv.h"
#include "util/Error.h"
#include "util/Strings.h"

namespace steprdu::traces {

std::vector<long long> ExpertRouting::tokensPerExpert() const {
    std::vector<long long> counts(numExperts, 0);
    for (std::size_t t = 0; t < rows.size(); ++t) {
        for (int e : rows[t]) {
            // Hand-built or generated routings skip the reader's checks; report instead of corrupting memory.
            if (e < 0 || e >= numExperts)
                throw BadInput(
                    fmt::format("{}: token {}: expert id out of range; {}", source, t,
                                expectedFound(fmt::format("0..{}", numExperts - 1), std::to_string(e))));
            ++counts[e];
        }
    }
    return counts;
}

ExpertRouting ExpertRouting::prefix(int n) const {
    if (n < 0 || n > batch())
        throw BadInput(
            fmt::format("{}: prefix of the routing trace; {}", source,
                        expectedFound(fmt::format("a batch in 0..{}", batch()), std::to_string(n))));
    ExpertRouting out{source, numExperts, topK, {}};
    out.rows.assign(rows.begin(), rows.begin() + n);
    return out;
}

namespace {

// K from a header "token,topk0,...,topk{K-1}", or 0 if the header is not of that form.
int routingHeaderK(const std::vector<std::string>& header) {
    if (header.size() < 2 || header[0] != "token") return 0;
    for (std::size_t i = 1; i < header.size(); ++i)
        if (header[i] != fmt::format("topk{}", i - 1)) return 0;
    return static_cast<int>(header.size()) - 1;
}

} // namespace

ExpertRouting readExpertRouting(const std::string& path, int numExperts) {
    if (numExperts < 1)
        throw BadInput(fmt::format("{}: number of experts for the routing trace; {}", path,
                                   expectedFound("at least 1", std::to_string(numExperts))));
    TraceCsv csv(path, "routing trace");
    const std::string headerForm = "header 'token,topk0,...,topk{K-1}' with K >= 1";
    std::vector<std::string> f;
    if (!csv.next(f)) csv.fail("missing header", headerForm, "an empty file");
    const int k = routingHeaderK(f);
    if (k == 0) csv.fail("bad header", headerForm, traces::quoted(csv.lineText()));
    if (k > numExperts)
        csv.fail("more experts per token than experts", fmt::format("at most {} topk columns", numExperts),
                 std::to_string(k));

    ExpertRouting r{path, numExperts, k, {}};
    while (csv.next(f)) {
        const long long t = static_cast<long long>(r.rows.size());
        if (static_cast<int>(f.size()) != k + 1)
            csv.fail("wrong column count",
                     fmt::format("{} fields (token + {} expert ids, as in the header)", k + 1, k),
                     std::to_string(f.size()));
        auto token = parseInt(f[0]);
        if (!token) csv.fail("non-integer field 'token'", "an integer", traces::quoted(f[0]));
        if (*token != t) csv.fail("token index out of sequence", std::to_string(t), std::to_string(*token));
        std::vector<int> row;
        row.reserve(k);
        for (int j = 0; j < k; ++j) {
            const std::string column = fmt::format("topk{}", j);
            auto e = parseInt(f[j + 1]);
            if (!e)
                csv.fail(fmt::format("non-integer field '{}'", column), "an integer",
                         traces::quoted(f[j + 1]));
            if (*e < 0 || *e >= numExperts)
                csv.fail(fmt::format("expert id out of range in '{}'", column),
                         fmt::format("0..{} ({} experts)", numExperts - 1, numExperts), std::to_string(*e));
            for (int i = 0; i < j; ++i)
                if (row[i] == *e)
                    csv.fail("duplicate expert within a token's row",
                             fmt::format("{} distinct expert ids", k),
                             fmt::format("expert {} in both 'topk{}' and '{}'", *e, i, column));
            row.push_back(static_cast<int>(*e));
        }
        r.rows.push_back(std::move(row));
    }
    if (r.rows.empty()) csv.fail("no token rows", "at least one row after the header", "end of file");
    return r;
}

} // namespace steprdu::traces
