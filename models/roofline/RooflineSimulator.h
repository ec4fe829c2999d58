#pragma once
// The roofline backend: runs a STeP graph with the published STeP simulator's timing (DAM-style channels with
// capacity, one-cycle hops and credit return; per-operator roofline costs; the HBM node), operator by
// operator in simulated-time order. Operators keep their own clocks; there is no global tick.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "hw/mem/step_node/HbmNode.h"
#include "step_ops/Graph.h"

#include "util/Timeline.h"

namespace steprdu::roofline {

using hw::mem::HbmNode;
using hw::mem::HbmParams;
using hw::mem::HbmStats;

struct RooflineOptions {
    std::int64_t pmuBytesPerCycle = 64; // on-chip memory-unit bandwidth (PMU_BW)
    HbmParams hbm;
    // Bytes per element the timing model charges for 4-byte (f32) elements; 0 = native. The paper's runs
    // use 2 (mock_bf16: every f32 tile is simulated as bf16).
    int timingElemBytes = 0;
    std::int64_t channelDepth = 2; // stream FIFO capacity in elements; 0 = unbounded
    std::map<std::string, std::int64_t>
        depthByProducer;        // per producing operator name, as the artifact's config_dict
    std::int64_t maxCycles = 0; // 0 = no limit
    double maxWallSeconds = 0;  // 0 = no limit
    // Stop with NoProgress when no operator has taken a token for this many cycles (0: never).
    std::int64_t watchdogCycles = 0;
    // Called about every progressSeconds of wall time with the simulated cycle reached (long runs).
    std::function<void(std::int64_t cycle, double wallSeconds)> progress;
    double progressSeconds = 2.0;
    // Behaviour of the published simulator that a plain model would not have (all on under
    // roofline.step_compat; docs/roofline.md):
    // DAM answers a dequeue with the element's own timestamp, so a sender may refill the slot one cycle after
    // the element became visible, unless the receiver was stuck on one of its outputs before dequeuing it.
    bool damCredits = false;
    // The published driver builds Broadcast streams with the default depth: per-producer depths of
    // Broadcasts (the attention scripts' metadata and write-back FIFOs) never take effect.
    bool broadcastDefaultDepth = false;
    // FlatReassemble moves its clock only to the arrival of the elements it forwards; switch and memory-unit
    // read cycles only order its dequeues.
    bool reassembleArrivalOnly = false;
    // Records a slice per operator firing, stream occupancy and HBM bandwidth (`--trace perfetto`).
    Timeline* timeline = nullptr;
};

struct OperatorTiming {
    std::string name, kind;
    std::int64_t finish = 0; // local clock when the operator finished
    std::int64_t busy = 0;   // cycles charged to its own work (compute, memory-unit access, routing)
    std::int64_t elements = 0;
};

struct RooflineResult {
    std::int64_t cycles = 0; // the largest clock any operator reached
    std::int64_t offChipReadBytes = 0, offChipWriteBytes = 0;
    HbmStats hbm;
    std::vector<OperatorTiming> operators;
    std::int64_t tokens = 0;
    std::int64_t switches = 0; // operator resumptions (a cost measure of the simulation itself)
};

class RooflineSimulator {
  public:
    explicit RooflineSimulator(RooflineOptions o) : o_(std::move(o)) {}
    // Throws NoProgress (naming blocked operators and full streams) on deadlock, LimitReached on a limit.
    RooflineResult run(step::Graph& g);

  private:
    RooflineOptions o_;
};

} // namespace steprdu::roofline
