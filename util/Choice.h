#pragma once
// A closed set of named values (a configuration choice such as rdn.topology): names are parsed into values
// once, where input is read, and code past that point compares values, never names.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace steprdu {

template <class T> struct Choice {
    std::string name;
    T value;
};
template <class T> using ChoiceTable = std::vector<Choice<T>>;

template <class T> std::vector<std::string> choiceNames(const ChoiceTable<T>& table) {
    std::vector<std::string> out;
    for (const auto& c : table)
        out.push_back(c.name);
    return out;
}

template <class T> std::optional<T> parseChoice(const ChoiceTable<T>& table, const std::string& name) {
    for (const auto& c : table)
        if (c.name == name) return c.value;
    return std::nullopt;
}

template <class T> const std::string& choiceName(const ChoiceTable<T>& table, const T& value) {
    for (const auto& c : table)
        if (c.value == value) return c.name;
    throw std::logic_error("a choice value without a name");
}

// The name of an enum value whose type has a `choices(E)` table (found by argument-dependent lookup).
template <class E> const std::string& nameOf(E value) {
    return choiceName(choices(value), value);
}

} // namespace steprdu
