#include "hw/CycleSimulator.h"

#include <chrono>

#include <fmt/format.h>

#include "hw/MemoryMap.h"
#include "hw/pnr/PlaceAndRoute.h"
#include "util/Error.h"

namespace steprdu::hw {

CycleResult CycleSimulator::run(step::Graph& g, step::TensorStore& store) {
    initSimTime();
    g.finalize();
    MemoryMap::check(cfg_);
    pnr::LoweringOptions po;
    po.timingElemBytes = o_.streams.timingElemBytes;
    po.channelDepth = o_.streams.channelDepth;
    po.depthByProducer = o_.streams.depthByProducer;
    po.bindings = o_.bindings;
    const pnr::PnrResult pnr = pnr::placeAndRoute(g, cfg_, po);
    const pnr::Placement& placement = pnr.placement;
    // SystemC objects live until the process ends: the kernel keeps references to them.
    static std::unique_ptr<Chip> chip;
    chip = std::make_unique<Chip>("chip", cfg_, g, placement, store, o_.streams);

    const auto start = std::chrono::steady_clock::now();
    auto wall = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    Cycle slice = 1 << 16;
    double nextProgress = o_.progressSeconds;
    for (;;) {
        const double before = wall();
        Cycle target = now() + slice;
        if (o_.maxCycles) target = std::min<Cycle>(target, o_.maxCycles + 1);
        sc_core::sc_start(cycles(target - now()), sc_core::SC_EXIT_ON_STARVATION);
        rethrowSimulationFailure();
        if (chip->finished()) break;
        if (!sc_core::sc_pending_activity())
            throw NoProgress(fmt::format("cycle backend: no forward progress at cycle {}; blocked:{}", now(),
                                         chip->blockedReport()));
        if (o_.maxCycles && now() > o_.maxCycles)
            throw LimitReached(fmt::format("cycle backend: --max-cycles {} reached", o_.maxCycles));
        const double w = wall();
        if (o_.maxWallSeconds && w > o_.maxWallSeconds)
            throw LimitReached(fmt::format("cycle backend: --max-wall-seconds {} reached at cycle {}",
                                           o_.maxWallSeconds, now()));
        if (o_.progress && w >= nextProgress) {
            o_.progress(now(), w);
            nextProgress = w + o_.progressSeconds;
        }
        // Slices of about a tenth of a second keep the limits and progress checks prompt and cheap.
        if (w - before < 0.05)
            slice *= 2;
        else if (w - before > 0.2 && slice > 1024)
            slice /= 2;
    }
    CycleResult r;
    r.wallSeconds = wall();
    r.cycles = chip->finishCycle();
    r.summary = chip->summary(r.cycles);
    r.summary["pnr"] = pnr.report;
    chip->reportStats(r.stats, r.cycles);
    r.events = chip->events();
    return r;
}

} // namespace steprdu::hw
