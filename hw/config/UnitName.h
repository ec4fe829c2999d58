#pragma once
// The names units go by in `--set chip.<unit>.<key>`, stats paths and messages: pcu_r<row>c<col>,
// pmu_r<row>c<col> (grid sites) and agcu<index>. Formatted and parsed here only.
#include <cstdint>
#include <optional>
#include <string>

#include "util/Choice.h"

namespace steprdu::hw {

enum class UnitKind { Pcu, Pmu, Agcu };
const ChoiceTable<UnitKind>& choices(UnitKind);
inline const std::string& kindName(UnitKind k) {
    return nameOf(k);
} // "pcu", "pmu", "agcu"

struct UnitName {
    UnitKind kind = UnitKind::Pcu;
    std::int64_t row = -1, col = -1; // a PCU or PMU site
    std::int64_t index = -1;         // an AGCU
};

std::string siteName(int row, int col, UnitKind k); // "pcu_r3c7"
std::string agcuName(int index);                    // "agcu5"
// The unit `name` names, or nothing if it is not a unit name (numbers too large to be a site saturate).
std::optional<UnitName> parseUnitName(const std::string& name);

} // namespace steprdu::hw
