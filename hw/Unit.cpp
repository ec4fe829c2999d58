#include "hw/Unit.h"

#include <fmt/format.h>

#include "hw/OperatorProcess.h"
#include "util/Error.h"

namespace steprdu::hw {

namespace {
std::exception_ptr gFailure;
}

Unit::Unit(sc_core::sc_module_name name, UnitKind kind, const HwConfig& cfg)
    : sc_core::sc_module(name), kind_(kind), cfg_(cfg) {}

void Unit::offChip(OperatorProcess& op, const step::OffChipAccess&) {
    throw std::logic_error(
        fmt::format("{}: {} on a {} has no path to memory", path(), op.op().where(), kindName(kind_)));
}

void failSimulation(std::exception_ptr e) {
    if (!gFailure) gFailure = e;
    sc_core::sc_stop();
}

void rethrowSimulationFailure() {
    if (gFailure) {
        auto e = gFailure;
        gFailure = nullptr;
        std::rethrow_exception(e);
    }
}

} // namespace steprdu::hw
