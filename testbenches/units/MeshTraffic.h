#pragma once
// Synthetic traffic on the RDN mesh, as NoC simulators measure a network: one endpoint per switch, each
// injecting packets as a Bernoulli process (open loop: source queues are unbounded) towards destinations
// chosen by a pattern. Packets created in the measurement window (after a warm-up) are tracked to their
// delivery: offered and accepted throughput in flits per node per cycle, mean and p99 latency from creation
// to the tail's arrival, and the zero-load latency the mesh's rules give for the pattern. The network is
// saturated when it accepts less than 95% of the offered load (or measured packets are still undelivered
// ten windows later).
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/config/HwConfig.h"
#include "hw/fabric/RdnMesh.h"

namespace steprdu::hw {

struct TrafficOptions {
    std::string pattern = "uniform"; // uniform | transpose | bitcomp | hotspot
    double rate = 0.1;               // offered flits per node per cycle
    int packetFlits = 4;
    int rows = 8, cols = 8; // 0: the configuration's whole grid
    Cycle warmup = 1000, cycles = 10000;
    double hotspotFraction = 0.1; // hotspot: share of packets sent to the centre node
    std::uint64_t seed = 1;
    bool flitLevel = false;
};

// Validates the options (pattern, rate, sizes); throws BadInput naming the option.
void checkTrafficOptions(const TrafficOptions& o);
// Runs the traffic on a mesh with the configuration's RDN parameters; one simulation per process.
nlohmann::json runMeshTraffic(const HwConfig& cfg, const TrafficOptions& o);

} // namespace steprdu::hw
