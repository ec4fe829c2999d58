#include "python/bindings/JsonPy.h"

#include <fmt/format.h>

#include "util/Error.h"

namespace steprdu::py {

namespace pyb = pybind11;

nlohmann::json toJson(pyb::handle h, const std::string& where) {
    if (h.is_none()) return nullptr;
    if (pyb::isinstance<pyb::bool_>(h)) return h.cast<bool>();
    if (pyb::isinstance<pyb::int_>(h)) return h.cast<std::int64_t>();
    if (pyb::isinstance<pyb::float_>(h)) return h.cast<double>();
    if (pyb::isinstance<pyb::str>(h)) return h.cast<std::string>();
    if (pyb::isinstance<pyb::list>(h) || pyb::isinstance<pyb::tuple>(h)) {
        nlohmann::json a = nlohmann::json::array();
        std::size_t i = 0;
        for (auto item : h)
            a.push_back(toJson(item, fmt::format("{}[{}]", where, i++)));
        return a;
    }
    if (pyb::isinstance<pyb::dict>(h)) {
        nlohmann::json o = nlohmann::json::object();
        for (auto [k, v] : h.cast<pyb::dict>()) {
            if (!pyb::isinstance<pyb::str>(k))
                throw BadInput(
                    fmt::format("{}: {}", where, expectedFound("string keys", std::string(pyb::repr(k)))));
            const auto key = k.cast<std::string>();
            o[key] = toJson(v, where + "." + key);
        }
        return o;
    }
    // numpy scalars (np.int64, np.float32, np.bool_) convert through their Python value.
    if (pyb::hasattr(h, "item") && pyb::hasattr(h, "dtype")) {
        pyb::object v = h.attr("item")();
        if (!pyb::hasattr(v, "dtype")) return toJson(v, where);
    }
    throw BadInput(fmt::format("{}: {}", where,
                               expectedFound("None, bool, int, float, str, list or dict",
                                             "a " + std::string(pyb::str(h.get_type().attr("__name__"))))));
}

pyb::object fromJson(const nlohmann::json& j) {
    switch (j.type()) {
    case nlohmann::json::value_t::null:
        return pyb::none();
    case nlohmann::json::value_t::boolean:
        return pyb::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer:
        return pyb::int_(j.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned:
        return pyb::int_(j.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float:
        return pyb::float_(j.get<double>());
    case nlohmann::json::value_t::string:
        return pyb::str(j.get<std::string>());
    case nlohmann::json::value_t::array: {
        pyb::list l;
        for (const auto& v : j)
            l.append(fromJson(v));
        return std::move(l);
    }
    case nlohmann::json::value_t::object: {
        pyb::dict d;
        for (const auto& [k, v] : j.items())
            d[pyb::str(k)] = fromJson(v);
        return std::move(d);
    }
    default:
        return pyb::none();
    }
}

} // namespace steprdu::py
