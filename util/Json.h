#pragma once
// Reading numbers from JSON input: nlohmann converts a float to an integer type with a plain cast, which is
// undefined behaviour when it is out of range (1e300 as a tensor's rows), so input numbers go through here.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace steprdu {

// `v` as an integer; BadInput naming `what` when it is not a JSON integer or lies outside [lo, hi].
std::int64_t jsonInteger(const nlohmann::json& v, const std::string& what, std::int64_t lo = INT64_MIN,
                         std::int64_t hi = INT64_MAX);

// Float32 values as JSON that keeps every bit: finite values as numbers (printed to round-trip exactly, -0
// included), the others as strings: "inf", "-inf", "nan" for the default quiet NaN, and any other NaN as its
// bits, "0x7fc00001". JSON has no NaN or infinity, and a tensor must come back as it went.
nlohmann::json floatsToJson(const std::vector<float>& values);
// A float32's bits and back (memcpy: no aliasing rules broken, every bit kept).
std::uint32_t floatBits(float f);
float floatFromBits(std::uint32_t bits);
// The inverse; also takes "+inf". BadInput naming `what` and the index of the first value that is neither a
// number nor one of those strings.
std::vector<float> floatsFromJson(const nlohmann::json& j, const std::string& what);

} // namespace steprdu
