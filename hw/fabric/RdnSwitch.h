#pragma once
// One RDN switch: input buffers (FIFO per input port), the output links it arbitrates round robin, and the
// injection links of the endpoints attached to it. It has no process of its own: the mesh's calendar calls
// arbitrate() at the cycles when a packet's head wants a link or a link or credit frees up. The packet model
// is described in RdnMesh.h.
#include <vector>

#include <systemc>

#include "hw/sim/SimTime.h"

namespace steprdu::hw {

class RdnMesh;

class RdnSwitch : public sc_core::sc_module {
  public:
    RdnSwitch(sc_core::sc_module_name name, RdnMesh& mesh);

    int addInputPort();
    // A visit whose head is in input buffer `port` (or, with port -1, at its source) wants its links.
    void enqueue(int port, int visit);
    // Grants `link` (one of this switch's) to a waiting head now, if one may take it.
    void arbitrate(int link);
    // Input port heads that still wait (deadlock reports).
    std::vector<int> waitingVisits() const;

  private:
    // An input buffer's packets in arrival order: a list through the visits (Visit::next), so that a
    // switch's ports sit in one or two cache lines.
    struct Port {
        int head = -1, tail = -1;
        Cycle nextFree = 0; // the previous packet's tail has left
    };
    bool wants(int visit, int link, int* child) const;
    Cycle ready(int visit) const;
    void requestLinks(int visit);
    void grant(int link, int visit, int child);
    void finish(int visit);

    RdnMesh& mesh_;
    std::vector<Port> ports_;
    std::vector<int> heads_; // scratch of arbitrate()
};

} // namespace steprdu::hw
