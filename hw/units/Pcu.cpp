#include "hw/units/Pcu.h"

#include <algorithm>
#include <cmath>

#include "hw/units/OperatorProcess.h"

namespace steprdu::hw {

namespace {
std::int64_t ceilDiv(std::int64_t a, std::int64_t b) {
    return b <= 0 ? 0 : (a + b - 1) / b;
}
} // namespace

WorkDone Pcu::cost(const PcuConfig& c, const step::Work& w, int units) {
    using K = step::Work::Kind;
    using S = step::ComputeShape::Kind;
    const std::int64_t g = std::max(1, units), lanes = c.simd_lanes;
    const Cycle pipe = c.pipeline_latency_cycles;
    switch (w.kind) {
    case K::Compute: {
        const auto& s = w.shape;
        switch (s.kind) {
        case S::Matmul: {
            std::int64_t tiles = ceilDiv(s.m, c.rows) * ceilDiv(s.n, c.cols);
            // Fewer output tiles than PCUs: split K so that every PCU works, and add the partial results up
            // in a tree, each level streaming a partial tile's rows through the next PCU.
            std::int64_t split = std::max<std::int64_t>(1, std::min(g / tiles, s.k));
            Cycle busy = ceilDiv(tiles * split, g) * ceilDiv(s.k, split);
            Cycle tree = static_cast<Cycle>(std::ceil(std::log2(static_cast<double>(split)))) * c.rows;
            return {busy, busy + c.rows + c.cols + tree};
        }
        case S::Elementwise:
        case S::Copy: {
            Cycle busy =
                ceilDiv(s.elements, lanes * g) * ceilDiv(std::max(1, s.opsPerElement), c.simd_stages);
            return {busy, busy + pipe};
        }
        case S::RowReduction: {
            Cycle busy = ceilDiv(s.elements, lanes * g);
            Cycle tree = static_cast<Cycle>(std::ceil(std::log2(std::max<std::int64_t>(lanes, 1))));
            return {busy, busy + pipe + tree};
        }
        case S::Scalar:
            return {1, 1};
        case S::None:
            return {0, 0};
        }
        return {0, 0};
    }
    case K::MemoryRead: // the element was read out of its PMU on the way here
        return {0, 0};
    case K::Route:
    case K::Merge:
    case K::Repeat:
    case K::BufferElement: {
        Cycle busy = std::max<Cycle>(1, ceilDiv(w.elementBytes, lanes * 4 * g));
        return {busy, busy};
    }
    }
    return {0, 0};
}

WorkDone Pcu::perform(OperatorProcess& op, const step::Work& w) {
    WorkDone c = cost(cfg_.pcu, w, op.units());
    busy_ += c.done;
    for (Unit* u : op.group())
        if (u->unitKind() == UnitKind::Pcu) static_cast<Pcu*>(u)->credit(c.done);
    Cycle t = now();
    if (op.timeShared()) { // after the work the other operator has booked on this PCU
        t = std::max(t, sharedFree_);
        sharedFree_ = t + c.done;
    }
    return {t + c.done, t + c.ready};
}

void Pcu::reportStats(StatsRegistry& stats, Cycle) const {
    stats.add(path(), "busy_cycles", static_cast<double>(busy_));
}

} // namespace steprdu::hw
