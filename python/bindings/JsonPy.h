#pragma once
// Python values to JSON and back: the module hands configuration, knobs, results and operator arguments
// across as JSON, which the C++ core already validates with pointed messages.
#include <string>

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

namespace steprdu::py {

// None, bool, int, float, str, list/tuple and dict (string keys) and numpy scalars; anything else is a
// BadInput naming `where` and the Python type found.
nlohmann::json toJson(pybind11::handle h, const std::string& where);
pybind11::object fromJson(const nlohmann::json& j);

} // namespace steprdu::py
