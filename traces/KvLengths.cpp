#include "traces/KvLengths.h"

#include <fmt/format.h>

#include "traces/TraceCsv.h"
#include "util/Error.h"
#include "util/Strings.h"

namespace steprdu::traces {

KvLengths KvLengths::prefix(int n) const {
    if (n < 0 || n > batch())
        throw BadInput(
            fmt::format("{}: prefix of the KV-length trace; {}", source,
                        expectedFound(fmt::format("a batch in 0..{}", batch()), std::to_string(n))));
    return KvLengths{source, std::vector<long long>(lengths.begin(), lengths.begin() + n)};
}

KvLengths readKvLengths(const std::string& path) {
    TraceCsv csv(path, "KV-length trace");
    const std::string headerForm = "header 'request,kv_len'";
    std::vector<std::string> f;
    if (!csv.next(f)) csv.fail("missing header", headerForm, "an empty file");
    if (f.size() != 2 || f[0] != "request" || f[1] != "kv_len")
        csv.fail("bad header", headerForm, traces::quoted(csv.lineText()));

    KvLengths kv{path, {}};
    while (csv.next(f)) {
        const long long i = static_cast<long long>(kv.lengths.size());
        if (f.size() != 2)
            csv.fail("wrong column count", "2 fields (request,kv_len)", std::to_string(f.size()));
        auto request = parseInt(f[0]);
        if (!request) csv.fail("non-integer field 'request'", "an integer", traces::quoted(f[0]));
        if (*request != i)
            csv.fail("request index out of sequence", std::to_string(i), std::to_string(*request));
        auto len = parseInt(f[1]);
        if (!len) csv.fail("non-integer field 'kv_len'", "an integer", traces::quoted(f[1]));
        if (*len < 0) csv.fail("negative KV length", "kv_len >= 0", std::to_string(*len));
        kv.lengths.push_back(*len);
    }
    if (kv.lengths.empty()) csv.fail("no request rows", "at least one row after the header", "end of file");
    return kv;
}

} // namespace steprdu::traces
