#include "testbenches/Testbench.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "util/Error.h"
#include "util/Strings.h"

namespace steprdu::tb {

Knobs::Knobs(const std::string& testbench, const std::vector<Knob>& spec,
             const std::vector<std::string>& assignments)
    : tb_(testbench) {
    std::vector<std::string> names;
    for (auto& k : spec) {
        names.push_back(k.name);
        defaults_[k.name] = k.defaultValue;
    }
    for (auto& a : assignments) {
        auto eq = a.find('=');
        if (eq == std::string::npos || eq == 0)
            throw BadInput(
                fmt::format("{}: knob '{}': {}", tb_, a, expectedFound("key=value", "'" + a + "'")));
        std::string key = a.substr(0, eq), value = a.substr(eq + 1);
        if (!defaults_.count(key)) {
            auto near = nearestWord(key, names);
            throw BadInput(fmt::format("{}: unknown knob '{}'{}; knobs: {}", tb_, key,
                                       near ? "; did you mean '" + *near + "'?" : "",
                                       fmt::join(names, ", ")));
        }
        values_[key] = value;
    }
}

std::string Knobs::str(const std::string& k) const {
    auto it = values_.find(k);
    return it != values_.end() ? it->second : defaults_.at(k);
}

std::int64_t Knobs::integer(const std::string& k, std::int64_t lo, std::int64_t hi) const {
    auto v = parseInt(str(k));
    if (!v || *v < lo || *v > hi)
        throw BadInput(
            fmt::format("{}: knob '{}': {}", tb_, k,
                        expectedFound(fmt::format("an integer in [{}, {}]", lo, hi), "'" + str(k) + "'")));
    return *v;
}

std::int64_t Knobs::divisor(const std::string& k, std::int64_t whole, const std::string& wholeName) const {
    std::int64_t v = integer(k, 1, whole);
    if (whole % v)
        throw BadInput(fmt::format(
            "{}: knob '{}': {}", tb_, k,
            expectedFound(fmt::format("a divisor of {}={}", wholeName, whole), std::to_string(v))));
    return v;
}

std::string Knobs::choice(const std::string& k, const std::vector<std::string>& options) const {
    std::string v = str(k);
    if (std::find(options.begin(), options.end(), v) == options.end())
        throw BadInput(
            fmt::format("{}: knob '{}': {}", tb_, k,
                        expectedFound(fmt::format("one of {}", fmt::join(options, ", ")), "'" + v + "'")));
    return v;
}

const std::vector<std::unique_ptr<Testbench>>& testbenches() {
    static const std::vector<std::unique_ptr<Testbench>> all = [] {
        std::vector<std::unique_ptr<Testbench>> v;
        v.push_back(makeSwigluTestbench());
        v.push_back(makeMoeTestbench());
        v.push_back(makeAttentionTestbench());
        v.push_back(makeQkvTestbench());
        v.push_back(makeDecoderTestbench());
        v.push_back(makeCopyTestbench());
        v.push_back(makeGemmTestbench());
        v.push_back(makeElementwiseTestbench());
        v.push_back(makeGraphFileTestbench());
        return v;
    }();
    return all;
}

const Testbench& findTestbench(const std::string& name) {
    std::vector<std::string> names;
    for (auto& t : testbenches()) {
        if (t->name() == name) return *t;
        names.push_back(t->name());
    }
    auto near = nearestWord(name, names);
    throw BadInput(fmt::format("unknown testbench '{}'{}; testbenches: {}", name,
                               near ? "; did you mean '" + *near + "'?" : "", fmt::join(names, ", ")));
}

double relativeError(const std::vector<float>& got, const std::vector<double>& want) {
    if (got.size() != want.size()) return INFINITY;
    double num = 0, den = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        num += (got[i] - want[i]) * (got[i] - want[i]);
        den += want[i] * want[i];
    }
    return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

} // namespace steprdu::tb
