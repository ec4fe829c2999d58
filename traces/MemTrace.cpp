#include "traces/MemTrace.h"

#include <fmt/format.h>

#include "traces/TraceCsv.h"
#include "util/Error.h"
#include "util/Strings.h"

namespace steprdu::traces {

MemTrace readMemTrace(const std::string& path, int alignment) {
    TraceCsv csv(path, "memory trace");
    const std::string headerForm = "header 'cycle,op,address,bytes'";
    std::vector<std::string> f;
    if (!csv.next(f)) csv.fail("missing header", headerForm, "an empty file");
    if (f.size() != 4 || f[0] != "cycle" || f[1] != "op" || f[2] != "address" || f[3] != "bytes")
        csv.fail("bad header", headerForm, traces::quoted(csv.lineText()));
    MemTrace t{path, {}};
    std::int64_t last = 0;
    while (csv.next(f)) {
        if (f.size() != 4)
            csv.fail("wrong column count", "4 fields (cycle,op,address,bytes)", std::to_string(f.size()));
        MemRequest r;
        auto cycle = parseInt(f[0]);
        if (!cycle) csv.fail("non-integer field 'cycle'", "an integer", traces::quoted(f[0]));
        if (*cycle < 0) csv.fail("negative field 'cycle'", "a cycle >= 0", std::to_string(*cycle));
        if (*cycle != 0 && *cycle < last)
            csv.fail("field 'cycle' goes back in time",
                     fmt::format("0 or at least {} (the previous request's cycle)", last),
                     std::to_string(*cycle));
        if (f[1] != "R" && f[1] != "W") csv.fail("bad field 'op'", "R or W", traces::quoted(f[1]));
        auto address = parseAddress(f[2]);
        if (!address)
            csv.fail("non-integer field 'address'", "a decimal or 0x-hexadecimal integer",
                     traces::quoted(f[2]));
        if (*address < 0) csv.fail("negative field 'address'", "an address >= 0", std::to_string(*address));
        if (*address % alignment)
            csv.fail("unaligned field 'address'",
                     fmt::format("a multiple of the {}-byte transaction", alignment), f[2]);
        auto bytes = parseInt(f[3]);
        if (!bytes) csv.fail("non-integer field 'bytes'", "an integer", traces::quoted(f[3]));
        if (*bytes <= 0) csv.fail("bad field 'bytes'", "a byte count >= 1", std::to_string(*bytes));
        r.cycle = *cycle;
        r.write = f[1] == "W";
        r.address = static_cast<std::uint64_t>(*address);
        r.bytes = *bytes;
        last = std::max<std::int64_t>(last, *cycle);
        t.requests.push_back(r);
    }
    if (t.requests.empty()) csv.fail("no requests", "at least one line after the header", "none");
    return t;
}

void writeMemTrace(const MemTrace& t, std::ostream& out) {
    out << "cycle,op,address,bytes\n";
    for (const auto& r : t.requests)
        out << r.cycle << ',' << (r.write ? 'W' : 'R') << ",0x" << fmt::format("{:x}", r.address) << ','
            << r.bytes << '\n';
}

namespace {
// SplitMix64: a portable, well-mixed function of (seed, index), so traces are the same everywhere.
std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
} // namespace

MemTrace generateMemTrace(const MemTraceGenerator& g) {
    auto bad = [](const std::string& what, const std::string& expected, const std::string& found) {
        throw BadInput(fmt::format("memtrace --generate: {}: {}", what, expectedFound(expected, found)));
    };
    if (g.pattern != "sequential" && g.pattern != "random" && g.pattern != "mixed")
        bad("pattern", "sequential, random or mixed", "'" + g.pattern + "'");
    if (g.requestBytes <= 0) bad("--request-bytes", "a byte count >= 1", std::to_string(g.requestBytes));
    if (g.bytes < g.requestBytes)
        bad("--bytes", fmt::format("at least --request-bytes = {}", g.requestBytes), std::to_string(g.bytes));
    if (g.pattern != "sequential" && g.span < g.requestBytes)
        bad("--span", fmt::format("at least --request-bytes = {}", g.requestBytes), std::to_string(g.span));
    const double writes = g.writeFraction >= 0 ? g.writeFraction : g.pattern == "mixed" ? 0.5 : 0.0;
    if (writes > 1) bad("--write-fraction", "a fraction in [0, 1]", fmt::format("{}", writes));
    MemTrace t;
    t.source = fmt::format("{} {} B in {} B requests, {:.0f}% writes, seed {}", g.pattern, g.bytes,
                           g.requestBytes, writes * 100, g.seed);
    const std::int64_t n = g.bytes / g.requestBytes;
    const std::uint64_t slots = static_cast<std::uint64_t>(g.span / g.requestBytes);
    t.requests.reserve(n);
    for (std::int64_t i = 0; i < n; ++i) {
        MemRequest r;
        r.bytes = g.requestBytes;
        const std::uint64_t h = mix(g.seed * 0x100000001b3ULL + static_cast<std::uint64_t>(i));
        r.address = g.pattern == "sequential" ? static_cast<std::uint64_t>(i * g.requestBytes)
                                              : (h % slots) * static_cast<std::uint64_t>(g.requestBytes);
        r.write = double(mix(h) >> 11) * 0x1.0p-53 < writes;
        t.requests.push_back(r);
    }
    return t;
}

} // namespace steprdu::traces
