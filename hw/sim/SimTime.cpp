#include "hw/sim/SimTime.h"

#include <cstdlib>

// GCC defines __SANITIZE_ADDRESS__ under ASan; clang (the fuzz build) only answers __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define STEPRDU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STEPRDU_ASAN 1
#endif
#endif

#if defined(STEPRDU_ASAN)
#include <pthread.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace steprdu::hw {

void initSimTime() {
    static bool done = false;
    if (done) return;
    done = true;
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    // Integer cycles: the time resolution is the cycle itself.
    sc_core::sc_set_time_resolution(1, sc_core::SC_NS);
    sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
}

namespace {
void backOnOwnStack() {
#if defined(STEPRDU_ASAN)
    pthread_attr_t attr;
    void* bottom = nullptr;
    std::size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
    pthread_attr_getstack(&attr, &bottom, &size);
    pthread_attr_destroy(&attr);
    // A switch to the thread's own stack, announced and completed on the spot.
    void* fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, bottom, size);
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
}
} // namespace

void simulate(const sc_core::sc_time& t, sc_core::sc_starvation_policy p) {
    sc_core::sc_start(t, p);
    backOnOwnStack();
}

void simulate() {
    sc_core::sc_start();
    backOnOwnStack();
}

} // namespace steprdu::hw
