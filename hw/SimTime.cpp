#include "hw/SimTime.h"

#include <cstdlib>

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

} // namespace steprdu::hw
