#pragma once
// Checks several testbench tests share: a scaled-down functional run against the testbench's direct
// computation, and a bad knob refused by name.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "step_ops/Interpreter.h"
#include "step_ops/Metrics.h"
#include "testbenches/Testbench.h"
#include "util/Error.h"

namespace steprdu::test {

inline tb::Workload buildTestbench(const std::string& testbench, const std::vector<std::string>& knobs,
                                   bool functional) {
    const auto& t = tb::findTestbench(testbench);
    return t.build(tb::Knobs(t.name(), t.knobs(), knobs), functional);
}

// The interpreter's outputs are within `tolerance` (norm-wise) of the direct computation, and the off-chip
// bytes it moved are the symbolic traffic.
inline void expectFunctional(const std::string& testbench, const std::vector<std::string>& knobs,
                             double tolerance) {
    auto w = buildTestbench(testbench, knobs, true);
    ASSERT_TRUE(w.params.value("functional", true));
    step::Interpreter interp(true);
    auto r = interp.run(w.graph);
    EXPECT_LE(w.check(interp.memory()), tolerance);
    auto m = step::bindMetrics(w.graph, step::analyzeGraph(w.graph), w.bindings);
    EXPECT_EQ(r.offChipReadBytes + r.offChipWriteBytes, m.offChipBytes);
}

// Building with `knobs` throws BadInput naming `knob`.
inline void expectRefusedByName(const std::string& testbench, const std::vector<std::string>& knobs,
                                const std::string& knob) {
    try {
        buildTestbench(testbench, knobs, false);
    } catch (const BadInput& e) {
        EXPECT_NE(std::string(e.what()).find(knob), std::string::npos) << e.what();
        return;
    }
    ADD_FAILURE() << "accepted " << knob;
}

} // namespace steprdu::test
