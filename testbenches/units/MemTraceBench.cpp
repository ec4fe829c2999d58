#include "testbenches/units/MemTraceBench.h"

#include <chrono>
#include <memory>

#include <systemc>

#include "hw/mem/DramTier.h"
#include "hw/sim/SimTime.h"
#include "hw/sim/SimulationFailure.h"

namespace steprdu::hw::mem {

namespace {

// Submits the trace's requests at their cycles and tells the tier, each time, when the next one comes.
class TraceFeeder : public sc_core::sc_module {
  public:
    SC_HAS_PROCESS(TraceFeeder);
    TraceFeeder(sc_core::sc_module_name name, DramTier& tier, const traces::MemTrace& trace)
        : sc_core::sc_module(name), tier_(tier), trace_(trace), done_(trace.requests.size(), -1) {
        SC_METHOD(feed); // a method, not a thread: no coroutine stack to set up
    }
    const std::vector<Cycle>& completions() const { return done_; }

  private:
    // Submits every request due by now (a request whose cycle has passed goes now), then sleeps until the
    // next one's cycle.
    void feed() {
        const auto& r = trace_.requests;
        const Cycle at = now();
        for (; next_ < r.size() && r[next_].cycle <= at; ++next_) {
            Cycle* slot = &done_[next_];
            tier_.submit(0, 0, r[next_].write, at, {{r[next_].address, r[next_].bytes}},
                         tier_.engine().spec().transactionBytes, 0, [slot](Cycle c) { *slot = c; });
        }
        if (next_ == r.size()) {
            tier_.promise(kNever);
            return;
        }
        tier_.promise(r[next_].cycle);
        next_trigger(cycles(r[next_].cycle - at));
    }

    DramTier& tier_;
    const traces::MemTrace& trace_;
    std::vector<Cycle> done_;
    std::size_t next_ = 0;
};

std::int64_t percentile(const std::vector<std::int64_t>& histogram, std::int64_t total, double p) {
    std::int64_t seen = 0;
    for (std::size_t l = 0; l < histogram.size(); ++l) {
        seen += histogram[l];
        if (double(seen) >= p * double(total)) return static_cast<std::int64_t>(l);
    }
    return 0;
}

} // namespace

nlohmann::json runMemTrace(const MemTraceOptions& o, const traces::MemTrace& trace) {
    initSimTime();
    MemorySystemOptions mo = o.memory;
    mo.clock = ClockRatio{1, 1};
    mo.controller.latencyHistogram = true; // for the 99th percentile
    // SystemC objects live until the process ends: the kernel keeps references to them.
    static std::unique_ptr<DramTier> tier;
    static std::unique_ptr<TraceFeeder> feeder;
    tier = std::make_unique<DramTier>("mem", o.spec, mo, o.fastPath, 0);
    feeder = std::make_unique<TraceFeeder>("trace", *tier, trace);
    const auto start = std::chrono::steady_clock::now();
    simulate();
    rethrowSimulationFailure();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const MemorySystem& m = tier->engine();
    const DramSpec& s = m.spec();
    ControllerStats total;
    std::int64_t violations = 0, checked = 0;
    for (int c = 0; c < m.channels(); ++c) {
        total.add(m.controller(c).stats());
        if (const DramChecker* k = m.checker(c)) {
            violations += k->violationCount();
            checked += k->commands();
        }
    }
    const std::int64_t cycles = m.lastData();
    const double bytes = double(m.bytesRead() + m.bytesWritten());
    const double perCycle = cycles > 0 ? bytes / double(cycles) : 0.0;
    const double meanLatency = total.reads ? double(total.readLatencySum) / double(total.reads) : 0.0;
    const std::int64_t p99 = percentile(total.readLatencyHistogram, total.reads, 0.99);
    nlohmann::json j{
        {"preset", s.name},
        {"standard", s.standard},
        {"channels", s.channels},
        {"mapping", m.mapping().name()},
        {"row_policy", mo.controller.closedRow ? "closed" : "open"},
        {"fast_path", o.fastPath},
        {"requests", trace.requests.size()},
        {"dram_cycles", cycles},
        {"ns", double(cycles) * s.nsPerCycle()},
        {"tck_ps", s.tCKps},
        {"bytes_read", m.bytesRead()},
        {"bytes_written", m.bytesWritten()},
        {"bytes_per_cycle", perCycle},
        {"peak_bytes_per_cycle", s.peakBytesPerCycle()},
        {"achieved_gb_per_s", perCycle / s.nsPerCycle()},
        {"peak_gb_per_s", s.peakGBps()},
        {"bandwidth_fraction", perCycle / s.peakBytesPerCycle()},
        {"read_latency_mean_cycles", meanLatency},
        {"read_latency_p99_cycles", p99},
        {"read_latency_mean_ns", meanLatency * s.nsPerCycle()},
        {"read_latency_p99_ns", double(p99) * s.nsPerCycle()},
        {"row_hits", total.rowHits},
        {"row_misses", total.rowMisses},
        {"row_conflicts", total.rowConflicts},
        {"refreshes", total.refreshes},
        {"refresh_fraction",
         cycles > 0 ? double(total.refreshes) * s.t.nRFC / (double(cycles) * s.channels * s.ranks) : 0.0},
        {"commands", total.commands},
        {"wall_seconds", wall},
        {"simulator_wakes", tier->wakes()}};
    if (mo.checkTiming) {
        j["timing_checked_commands"] = checked;
        j["timing_violations"] = violations;
        std::vector<std::string> examples;
        for (int c = 0; c < m.channels(); ++c)
            for (const auto& e : m.checker(c)->examples())
                if (examples.size() < 5) examples.push_back("channel " + std::to_string(c) + ": " + e);
        j["timing_violation_examples"] = examples;
    }
    if (o.completions) j["completion_cycles"] = feeder->completions();
    return j;
}

} // namespace steprdu::hw::mem
