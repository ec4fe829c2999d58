#include "testbenches/units/MeshTraffic.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "hw/arch/ChipLayout.h"
#include "hw/sim/Calendar.h"
#include "hw/sim/SimulationFailure.h"
#include "util/Error.h"

namespace steprdu::hw {

namespace {

class TrafficGenerator : public sc_core::sc_module, public PacketSink {
  public:
    SC_HAS_PROCESS(TrafficGenerator);
    TrafficGenerator(sc_core::sc_module_name name, RdnMesh& mesh, const TrafficOptions& o)
        : sc_module(name), mesh_(mesh), o_(o), calendar_(wake_), rng_(o.seed), nodes_(o.rows * o.cols),
          flows_(nodes_) {
        SC_METHOD(process);
        sensitive << wake_;
        dont_initialize();
        for (int n = 0; n < nodes_; ++n)
            mesh_.attach(n / o_.cols, n % o_.cols, fmt::format("n{}", n));
        const double p = o_.rate / o_.packetFlits;
        gap_ = std::geometric_distribution<Cycle>(p);
        for (int n = 0; n < nodes_; ++n)
            if (injects(n)) calendar_.schedule(gap_(rng_), n);
    }

    // The destination of a packet from `src` (the pattern's permutation or a random draw).
    int destination(int src) {
        const int r = src / o_.cols, c = src % o_.cols;
        if (o_.pattern == "transpose") return c * o_.cols + r;
        if (o_.pattern == "bitcomp") return ~src & (nodes_ - 1);
        if (o_.pattern == "hotspot" && uniform_(rng_) < o_.hotspotFraction && hotspot() != src)
            return hotspot();
        std::uniform_int_distribution<int> pick(0, nodes_ - 2);
        int d = pick(rng_);
        return d >= src ? d + 1 : d;
    }
    int hotspot() const { return (o_.rows / 2) * o_.cols + o_.cols / 2; }
    // Permutations leave a node that maps onto itself silent.
    bool injects(int n) const {
        if (o_.pattern == "transpose") return n / o_.cols != n % o_.cols;
        if (o_.pattern == "bitcomp") return (~n & (nodes_ - 1)) != n;
        return nodes_ > 1;
    }

    void delivered(std::uint64_t tag, int, Cycle, Cycle tail) override {
        const Packet& p = packets_[tag];
        lastArrival_ = std::max(lastArrival_, tail);
        if (tail >= o_.warmup && tail < o_.warmup + o_.cycles) acceptedFlits_ += o_.packetFlits;
        if (p.measured) latencies_.push_back(tail - p.created);
    }

    void process() {
        while (calendar_.due()) {
            int src = calendar_.pop();
            const Cycle t = now();
            int dst = destination(src);
            auto it = flows_[src].find(dst);
            if (it == flows_[src].end()) it = flows_[src].emplace(dst, mesh_.addFlow(src, {dst})).first;
            bool measured = t >= o_.warmup && t < o_.warmup + o_.cycles;
            measuredPackets_ += measured;
            packets_.push_back({t, measured});
            mesh_.send(it->second, std::int64_t(o_.packetFlits) * mesh_.options().flitBytes, t, t, this,
                       packets_.size() - 1);
            Cycle next = t + 1 + gap_(rng_);
            if (next < o_.warmup + o_.cycles) calendar_.schedule(next, src);
        }
        calendar_.rearm();
    }

    struct Packet {
        Cycle created;
        bool measured;
    };
    RdnMesh& mesh_;
    TrafficOptions o_;
    sc_core::sc_event wake_;
    Calendar<int> calendar_;
    std::mt19937_64 rng_;
    std::geometric_distribution<Cycle> gap_;
    std::uniform_real_distribution<double> uniform_;
    int nodes_;
    std::vector<std::map<int, int>> flows_;
    std::vector<Packet> packets_;
    std::vector<Cycle> latencies_;
    std::int64_t acceptedFlits_ = 0, measuredPackets_ = 0;
    Cycle lastArrival_ = 0;
};

} // namespace

void checkTrafficOptions(const TrafficOptions& o) {
    const std::vector<std::string> patterns{"uniform", "transpose", "bitcomp", "hotspot"};
    if (std::find(patterns.begin(), patterns.end(), o.pattern) == patterns.end())
        throw BadInput("--pattern: " +
                       expectedFound("uniform, transpose, bitcomp or hotspot", "'" + o.pattern + "'"));
    if (!(o.packetFlits >= 1 && o.packetFlits <= 65536))
        throw BadInput("--packet-flits: " +
                       expectedFound("an integer in [1, 65536]", std::to_string(o.packetFlits)));
    if (!(o.rate > 0 && o.rate <= o.packetFlits))
        throw BadInput(
            fmt::format("--rate: {}", expectedFound(fmt::format("flits per node per cycle in (0, {}] (one "
                                                                "packet per cycle)",
                                                                o.packetFlits),
                                                    fmt::format("{}", o.rate))));
    if (o.rows < 1 || o.cols < 1 || o.rows * std::int64_t(o.cols) > 1 << 20)
        throw BadInput(fmt::format(
            "--mesh: {}", expectedFound("K x K with 1 to 2^20 nodes", fmt::format("{}x{}", o.rows, o.cols))));
    if (o.pattern == "transpose" && o.rows != o.cols)
        throw BadInput(fmt::format("--pattern transpose: {}",
                                   expectedFound("a square mesh", fmt::format("{}x{}", o.rows, o.cols))));
    const int nodes = o.rows * o.cols;
    if (o.pattern == "bitcomp" && (nodes & (nodes - 1)))
        throw BadInput(fmt::format("--pattern bitcomp: {}",
                                   expectedFound("a power-of-two number of nodes", std::to_string(nodes))));
    if (o.cycles < 1 || o.warmup < 0)
        throw BadInput(fmt::format("--cycles: {}", expectedFound("at least 1", std::to_string(o.cycles))));
}

nlohmann::json runMeshTraffic(const HwConfig& cfg, const TrafficOptions& opts) {
    TrafficOptions o = opts;
    const bool wholeChip = o.rows == 0 || o.cols == 0;
    if (wholeChip) {
        ChipLayout L(cfg.chip);
        o.rows = L.rows();
        o.cols = L.cols();
    }
    checkTrafficOptions(o);
    initSimTime();
    MeshOptions m = meshOptions(cfg);
    m.rows = o.rows;
    m.cols = o.cols;
    if (!wholeChip) m.dieCols = 0;
    m.flitLevel = o.flitLevel || cfg.rdn.flit_level;
    RdnMesh mesh("rdn", m);
    TrafficGenerator gen("traffic", mesh, o);
    const auto start = std::chrono::steady_clock::now();
    // Measured packets may need longer than the window to arrive; ten windows more is enough below
    // saturation.
    simulate(cycles(o.warmup + 11 * o.cycles), sc_core::SC_EXIT_ON_STARVATION);
    rethrowSimulationFailure();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    // Zero-load latency: H x (switch + link) + F over the pattern's source/destination pairs.
    const int nodes = o.rows * o.cols;
    auto hopsOf = [&](int s, int d) {
        return mesh.hops(s, d) * (m.switchLatency + m.linkLatency) + o.packetFlits;
    };
    double zeroLoad = 0;
    int sources = 0;
    for (int s = 0; s < nodes; ++s) {
        if (!gen.injects(s)) continue;
        ++sources;
        if (o.pattern == "transpose" || o.pattern == "bitcomp") {
            zeroLoad += hopsOf(s, gen.destination(s));
            continue;
        }
        double sum = 0;
        for (int d = 0; d < nodes; ++d)
            if (d != s) sum += hopsOf(s, d);
        double uniform = sum / (nodes - 1);
        zeroLoad += o.pattern == "hotspot" && s != gen.hotspot()
                        ? (1 - o.hotspotFraction) * uniform + o.hotspotFraction * hopsOf(s, gen.hotspot())
                        : uniform;
    }
    zeroLoad = sources ? zeroLoad / sources : 0;
    auto& lat = gen.latencies_;
    std::sort(lat.begin(), lat.end());
    double mean = 0;
    for (Cycle l : lat)
        mean += static_cast<double>(l);
    mean = lat.empty() ? 0 : mean / lat.size();
    double p99 = lat.empty() ? 0 : static_cast<double>(lat[std::min(lat.size() - 1, lat.size() * 99 / 100)]);
    const std::int64_t undelivered = gen.measuredPackets_ - static_cast<std::int64_t>(lat.size());
    const double offered = double(gen.measuredPackets_) * o.packetFlits / (double(nodes) * o.cycles);
    const double accepted = double(gen.acceptedFlits_) / (double(nodes) * o.cycles);
    const Cycle simulated = now();
    return {{"pattern", o.pattern},
            {"mesh", fmt::format("{}x{}", o.rows, o.cols)},
            {"packet_flits", o.packetFlits},
            {"flit_level", o.flitLevel},
            {"rate", o.rate},
            {"offered_flits_per_node_cycle", offered},
            {"accepted_flits_per_node_cycle", accepted},
            {"latency_mean_cycles", mean},
            {"latency_p99_cycles", p99},
            {"zero_load_latency_cycles", zeroLoad},
            {"measured_packets", gen.measuredPackets_},
            {"undelivered_packets", undelivered},
            {"saturated", undelivered > 0 || accepted < 0.95 * offered},
            {"simulated_cycles", simulated},
            {"packet_hops", mesh.packetHops()},
            {"wall_seconds", wall},
            {"sim_cycles_per_second", wall > 0 ? simulated / wall : 0.0},
            {"events_per_second", wall > 0 ? mesh.packetHops() / wall : 0.0}};
}

} // namespace steprdu::hw
