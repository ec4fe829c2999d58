#include "util/Json.h"

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

} // namespace steprdu
