#pragma once
// One RDN switch: input buffers (FIFO per input port), the output links it arbitrates round robin, and the
// injection links of the endpoints attached to it. Event-driven: its process runs only at the cycles when a
// packet's head wants a link or a link or credit frees up. The packet model is described in RdnMesh.h.
#include <deque>
#include <vector>

#include <systemc>

#include "hw/sim/Calendar.h"

namespace steprdu::hw {

class RdnMesh;

class RdnSwitch : public sc_core::sc_module {
  public:
    SC_HAS_PROCESS(RdnSwitch);
    RdnSwitch(sc_core::sc_module_name name, RdnMesh& mesh, int id);

    int addInputPort();
    // A visit whose head is in input buffer `port` (or, with port -1, at its source) wants its links.
    void enqueue(int port, int visit);
    // Arbitrate `link` no earlier than `at`.
    void wake(int link, Cycle at) { calendar_.schedule(std::max(at, now()), link); }
    // Input port heads that still wait (deadlock reports).
    std::vector<int> waitingVisits() const;

  private:
    struct Port {
        std::deque<int> fifo;
        Cycle nextFree = 0; // the previous packet's tail has left
    };
    void process();
    void arbitrate(int link);
    bool wants(int visit, int link, int* child) const;
    Cycle ready(int visit) const;
    void requestLinks(int visit);
    void grant(int link, int visit, int child);
    void finish(int visit);

    RdnMesh& mesh_;
    int id_;
    sc_core::sc_event wake_;
    Calendar<int> calendar_;
    std::vector<Port> ports_;
    std::vector<int> due_, heads_; // scratch of process() and arbitrate()
};

} // namespace steprdu::hw
