#include "traces/BundledTraces.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "traces/EmbeddedTraces.h"
#include "traces/SyntheticTraces.h"
#include "util/Error.h"
#include "util/Strings.h"

namespace steprdu::traces {

namespace {

constexpr unsigned long long kSeed = 5;

// KV lengths spread like the Azure conversation windows of the paper's traces (a few hundred to ~4k tokens).
KvLengths bundledKv(int batch) {
    return syntheticKvLengths(batch, kSeed, 1500, 1000, 64, 4096);
}

[[noreturn]] void unknownBundledTrace(const std::string& name) {
    auto near = nearestWord(name, bundledTraceNames());
    throw BadInput(fmt::format(
        "unknown bundled trace; {}{}",
        expectedFound(fmt::format("one of {}", fmt::join(bundledTraceNames(), ", ")), "'" + name + "'"),
        near ? fmt::format(" (did you mean '{}'?)", *near) : ""));
}

} // namespace

const std::vector<std::string>& bundledTraceNames() {
    static const std::vector<std::string> names{"mixtral_b64_seed5.csv", "qwen_b64_seed5.csv",
                                                "kv_b16_seed5.csv", "kv_b64_seed5.csv"};
    return names;
}

std::string bundledTrace(const std::string& name) {
    return kBundledPrefix + name;
}

std::optional<std::string> bundledTraceName(const std::string& path) {
    if (path.compare(0, kBundledPrefix.size(), kBundledPrefix) != 0) return std::nullopt;
    return path.substr(kBundledPrefix.size());
}

const char* bundledTraceText(const std::string& name) {
    for (const auto& t : embeddedTraces())
        if (name == t.name) return t.text;
    unknownBundledTrace(name);
}

void writeBundledTrace(const std::string& name, std::ostream& out) {
    // Mixtral-8x7B (8 experts, top-2) and Qwen3-30B-A3B (128 experts, top-8) shapes, as in the real traces.
    if (name == "mixtral_b64_seed5.csv")
        writeExpertRouting(syntheticRouting(64, 8, 2, kSeed, 0.5), out);
    else if (name == "qwen_b64_seed5.csv")
        writeExpertRouting(syntheticRouting(64, 128, 8, kSeed, 1.0), out);
    else if (name == "kv_b16_seed5.csv")
        writeKvLengths(bundledKv(16), out);
    else if (name == "kv_b64_seed5.csv")
        writeKvLengths(bundledKv(64), out);
    else
        unknownBundledTrace(name);
}

} // namespace steprdu::traces
