#include "hw/config/UnitName.h"

#include <limits>
#include <regex>

#include <fmt/format.h>

namespace steprdu::hw {

const ChoiceTable<UnitKind>& choices(UnitKind) {
    static const ChoiceTable<UnitKind> t{
        {"pcu", UnitKind::Pcu}, {"pmu", UnitKind::Pmu}, {"agcu", UnitKind::Agcu}};
    return t;
}

std::string siteName(int row, int col, UnitKind k) {
    return fmt::format("{}_r{}c{}", kindName(k), row, col);
}

std::string agcuName(int index) {
    return fmt::format("agcu{}", index);
}

namespace {
std::int64_t number(const std::string& digits) {
    constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
    std::int64_t v = 0;
    for (char c : digits)
        v = std::min(kMax, v * 10 + (c - '0'));
    return v;
}
} // namespace

std::optional<UnitName> parseUnitName(const std::string& name) {
    static const std::regex site("^(pcu|pmu)_r([0-9]+)c([0-9]+)$"), agcu("^agcu([0-9]+)$");
    std::smatch m;
    UnitName u;
    if (std::regex_match(name, m, agcu)) {
        u.kind = UnitKind::Agcu;
        u.index = number(m[1]);
        return u;
    }
    if (!std::regex_match(name, m, site)) return std::nullopt;
    u.kind = *parseChoice(choices(UnitKind{}), m[1].str());
    u.row = number(m[2]);
    u.col = number(m[3]);
    return u;
}

} // namespace steprdu::hw
