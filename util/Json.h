#pragma once
// Reading numbers from JSON input: nlohmann converts a float to an integer type with a plain cast, which is
// undefined behaviour when it is out of range (1e300 as a tensor's rows), so input numbers go through here.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace steprdu {

// `v` as an integer; BadInput naming `what` when it is not a JSON integer or lies outside [lo, hi].
std::int64_t jsonInteger(const nlohmann::json& v, const std::string& what, std::int64_t lo = INT64_MIN,
                         std::int64_t hi = INT64_MAX);

} // namespace steprdu
