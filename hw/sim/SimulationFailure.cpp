#include "hw/sim/SimulationFailure.h"

#include <systemc>

namespace steprdu::hw {

namespace {
std::exception_ptr gFailure;
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
