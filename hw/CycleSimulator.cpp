#include "hw/CycleSimulator.h"

#include <chrono>

#include <fmt/format.h>

#include "hw/mem/MemoryMap.h"
#include "hw/pnr/PlaceAndRoute.h"
#include "hw/sim/SimulationFailure.h"
#include "util/Error.h"

namespace steprdu::hw {

// Place and route, elaborate the chip from the result, simulate it.
CycleResult CycleSimulator::run(step::Graph& g, step::TensorStore& store) {
    initSimTime();
    struct ActiveTimeline {
        explicit ActiveTimeline(Timeline* t) { Timeline::setActive(t); }
        ~ActiveTimeline() { Timeline::setActive(nullptr); }
    } active(o_.timeline);
    g.finalize();
    MemoryMap::check(cfg_);
    const pnr::PnrResult pnr = o_.placement ? pnr::reusePlacement(g, cfg_, *o_.placement, o_.placementFrom)
                                            : pnr::placeAndRoute(g, cfg_, o_.streams);
    Chip& chip = elaborate(g, pnr.placement, store);
    CycleResult r;
    r.wallSeconds = simulate(chip);
    r.cycles = chip.finishCycle();
    r.summary = chip.summary(r.cycles);
    r.summary["pnr"] = pnr.report;
    chip.reportStats(r.stats, r.cycles);
    r.events = chip.events();
    return r;
}

Chip& CycleSimulator::elaborate(const step::Graph& g, const pnr::Placement& placement,
                                step::TensorStore& store) {
    // SystemC objects live until the process ends: the kernel keeps references to them.
    static std::unique_ptr<Chip> chip;
    chip = std::make_unique<Chip>("chip", cfg_, g, placement, store, o_.streams, o_.functional);
    return *chip;
}

// Slices of sc_start until every operator has finished, with the watchdog, the limits and progress reports
// between them; returns the wall seconds taken.
double CycleSimulator::simulate(Chip& chip) {
    const auto start = std::chrono::steady_clock::now();
    auto wall = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    Cycle slice = 1 << 16;
    double nextProgress = o_.progressSeconds;
    // The watchdog looks at least four times per window, so it stops within 1.25 windows of the last token.
    const Cycle watchdogLook = o_.watchdogCycles ? std::max<Cycle>(1, o_.watchdogCycles / 4) : 0;
    std::int64_t tokens = 0;
    Cycle lastMove = 0;
    auto watchdogReport = [&](Cycle at) {
        return fmt::format(
            "cycle backend: no forward progress (watchdog: no token entered a stream in the {} "
            "cycles since cycle {}) at cycle {}; blocked:{}",
            o_.watchdogCycles, lastMove, at, chip.blockedReport());
    };
    for (;;) {
        const double before = wall();
        Cycle target = now() + slice;
        if (watchdogLook && sc_core::sc_pending_activity()) {
            // With nothing due before the window closes, nothing can move in it: stop as it closes.
            const Cycle due = now() + static_cast<Cycle>(sc_core::sc_time_to_pending_activity().value());
            if (due - lastMove > o_.watchdogCycles && chip.tokensMoved() == tokens)
                throw NoProgress(watchdogReport(lastMove + o_.watchdogCycles));
            // Starvation-exit only stops at events: a slice must reach the next one.
            target = std::max(std::min(target, now() + watchdogLook), due);
        }
        if (o_.maxCycles) target = std::min<Cycle>(target, o_.maxCycles + 1);
        hw::simulate(cycles(target - now()), sc_core::SC_EXIT_ON_STARVATION);
        rethrowSimulationFailure();
        if (chip.finished()) break;
        if (!sc_core::sc_pending_activity())
            throw NoProgress(fmt::format("cycle backend: no forward progress at cycle {}; blocked:{}", now(),
                                         chip.blockedReport()));
        if (const std::int64_t t = chip.tokensMoved(); t != tokens) {
            tokens = t;
            lastMove = now();
        } else if (o_.watchdogCycles && now() - lastMove >= o_.watchdogCycles) {
            throw NoProgress(watchdogReport(now()));
        }
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
    return wall();
}

} // namespace steprdu::hw
