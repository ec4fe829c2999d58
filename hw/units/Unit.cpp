#include "hw/units/Unit.h"

#include <fmt/format.h>

#include "hw/units/OperatorProcess.h"
#include "util/Error.h"

namespace steprdu::hw {

Unit::Unit(sc_core::sc_module_name name, UnitKind kind, const HwConfig& cfg)
    : sc_core::sc_module(name), kind_(kind), cfg_(cfg) {}

void Unit::offChip(OperatorProcess& op, const step::OffChipAccess&) {
    throw std::logic_error(
        fmt::format("{}: {} on a {} has no path to memory", path(), op.op().where(), kindName(kind_)));
}

} // namespace steprdu::hw
