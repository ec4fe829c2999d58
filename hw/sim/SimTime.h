#pragma once
// Simulated time on the chip. One cycle of the fabric clock is one SystemC nanosecond; the clock frequency
// only converts cycles to seconds in reports. Timestamps travel in data (tokens, packets) as Cycle values.
#include <cstdint>
#include <limits>

#include <systemc>

namespace steprdu::hw {

using Cycle = std::int64_t;
constexpr Cycle kNever = std::numeric_limits<Cycle>::max();

// Called once per process before anything is elaborated.
void initSimTime();

// Runs the SystemC kernel (sc_start) for `t`, or until no event remains. Under AddressSanitizer it then tells
// ASan that the thread is back on its own stack: SystemC's coroutines switch stacks unannounced while the
// operators' Boost fibers inside them announce theirs, which leaves ASan with a mixed-up idea of the stack,
// and an exception thrown after the run would be misreported as a stack-buffer-overflow.
void simulate(const sc_core::sc_time& t, sc_core::sc_starvation_policy p = sc_core::SC_RUN_TO_TIME);
void simulate();

inline Cycle now() {
    return static_cast<Cycle>(sc_core::sc_time_stamp().value());
}

inline sc_core::sc_time cycles(Cycle c) {
    return sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(c));
}

// Blocks the calling SC_THREAD until cycle `t` (no wait if it is not in the future).
inline void waitUntil(Cycle t) {
    Cycle n = now();
    if (t > n) sc_core::wait(cycles(t - n));
}

// Notifies `e` at cycle `t` (>= now); an earlier pending notification wins, as SystemC defines it.
inline void notifyAt(sc_core::sc_event& e, Cycle t) {
    Cycle n = now();
    if (t <= n)
        e.notify(sc_core::SC_ZERO_TIME);
    else
        e.notify(cycles(t - n));
}

} // namespace steprdu::hw
