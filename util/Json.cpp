#include "util/Json.h"

#include <cfloat>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "util/Error.h"

namespace steprdu {

std::int64_t jsonInteger(const nlohmann::json& v, const std::string& what, std::int64_t lo, std::int64_t hi) {
    const std::string range = fmt::format("an integer in [{}, {}]", lo, hi);
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
        throw BadInput(fmt::format("{}: {}", what, expectedFound(range, v.dump())));
    if (!v.is_number_integer()) throw BadInput(fmt::format("{}: {}", what, expectedFound(range, v.dump())));
    const std::int64_t x = v.get<std::int64_t>();
    if (x < lo || x > hi) throw BadInput(fmt::format("{}: {}", what, expectedFound(range, v.dump())));
    return x;
}

namespace {

constexpr std::uint32_t kDefaultNan = 0x7fc00000u;

} // namespace

std::uint32_t floatBits(float f) {
    std::uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
}

float floatFromBits(std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

nlohmann::json floatsToJson(const std::vector<float>& values) {
    nlohmann::json out = nlohmann::json::array();
    for (float v : values) {
        if (std::isfinite(v))
            out.push_back(v);
        else if (std::isinf(v))
            out.push_back(v > 0 ? "inf" : "-inf");
        else if (floatBits(v) == kDefaultNan)
            out.push_back("nan");
        else
            out.push_back(fmt::format("{:#010x}", floatBits(v)));
    }
    return out;
}

std::vector<float> floatsFromJson(const nlohmann::json& j, const std::string& what) {
    const char* expected = "a number, \"nan\", \"inf\", \"-inf\" or a float's bits such as \"0x7fc00001\"";
    if (!j.is_array())
        throw BadInput(fmt::format("{}: {}", what, expectedFound("an array of values", j.dump())));
    std::vector<float> out;
    out.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) {
        const auto& v = j[i];
        if (v.is_number()) {
            const double d = v.get<double>();
            if (std::abs(d) > FLT_MAX)
                throw BadInput(fmt::format("{}[{}]: {}", what, i,
                                           expectedFound("a value within float32's range", v.dump())));
            out.push_back(static_cast<float>(d));
            continue;
        }
        const std::string s = v.is_string() ? v.get<std::string>() : "";
        if (s == "nan")
            out.push_back(floatFromBits(kDefaultNan));
        else if (s == "inf" || s == "+inf")
            out.push_back(INFINITY);
        else if (s == "-inf")
            out.push_back(-INFINITY);
        else if (s.size() == 10 && s.rfind("0x", 0) == 0 &&
                 s.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos)
            out.push_back(floatFromBits(static_cast<std::uint32_t>(std::stoul(s, nullptr, 16))));
        else
            throw BadInput(fmt::format("{}[{}]: {}", what, i, expectedFound(expected, v.dump())));
    }
    return out;
}

} // namespace steprdu
