#pragma once
// A failure inside a SystemC process (an operator's error, a memory tier's bad request) cannot unwind through
// the kernel: the process records it and stops the simulation, and the caller of sc_start throws it again.
#include <exception>

namespace steprdu::hw {

// Stops the simulation with `e` (thrown again once sc_start returns); the first failure wins.
void failSimulation(std::exception_ptr e);
// Rethrows the failure recorded during the last simulation, if any.
void rethrowSimulationFailure();

} // namespace steprdu::hw
