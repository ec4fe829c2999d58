#include "python/bindings/KernelProgram.h"

#include <memory>

#include <fmt/format.h>
#include <pybind11/stl.h>

#include "python/bindings/JsonPy.h"
#include "python/bindings/Program.h"
#include "step_ops/Metrics.h"
#include "system/ProgramRun.h"
#include "util/Error.h"

namespace pyb = pybind11;
using namespace pybind11::literals;

namespace steprdu::py {

namespace {

// A kernel as steprdu.Program hands it over: {name, graph (a steprdu.Graph or None), testbench, knobs
// [key=value], loop_knob, depth, timing_elem_bytes}.
sys::KernelSpec specOf(const pyb::dict& k, const std::string& where) {
    sys::KernelSpec s;
    s.name = k["name"].cast<std::string>();
    s.testbench = k["testbench"].cast<std::string>();
    s.knobs = k["knobs"].cast<std::vector<std::string>>();
    s.loopKnob = k["loop_knob"].cast<std::string>();
    const pyb::object graph = k["graph"];
    if (graph.is_none()) return s;
    const auto& p = graph.cast<const Program&>();
    auto w = std::make_shared<tb::Workload>();
    w->graph = p.finalized();
    w->bindings = p.bindings();
    w->channelDepth = k["depth"].cast<std::int64_t>();
    w->timingElemBytes = k["timing_elem_bytes"].cast<int>();
    if (w->channelDepth < 0)
        throw BadInput(
            fmt::format("{}: depth: {}", where,
                        expectedFound(">= 0 elements (0: unbounded)", std::to_string(w->channelDepth))));
    const auto flops = step::analyzeGraph(w->graph).flops.eval(w->bindings);
    w->figureFlops = flops ? *flops : 0;
    w->params = {{"operators", w->graph.numOps()}, {"depth", w->channelDepth}};
    s.workload = std::move(w);
    return s;
}

pyb::object timeProgram(const pyb::list& kernels, const pyb::list& schedule, const std::string& backend,
                        const std::string& hw, const std::vector<std::string>& sets,
                        const std::string& orchestration) {
    sys::ProgramBuilder b;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        const std::string where = fmt::format("Program: kernel {}", i);
        b.addKernel(specOf(kernels[i].cast<pyb::dict>(), where), where);
    }
    for (std::size_t i = 0; i < schedule.size(); ++i) {
        const auto entry = schedule[i].cast<pyb::tuple>();
        const std::string where = fmt::format("Program: call {}", i);
        std::vector<int> runs;
        for (const auto& name : entry[0].cast<std::vector<std::string>>()) {
            const auto& r = b.runsOf(name, where);
            runs.insert(runs.end(), r.begin(), r.end());
        }
        b.call(runs, entry[1].cast<long long>());
    }
    const sys::ProgramFile file = std::move(b).finish("Program");
    const auto modes = sys::orchestrationsOf("orchestration", orchestration);
    tb::RunRequest base;
    base.backend = backend;
    base.hw = hw;
    base.sets = sets;
    nlohmann::json result;
    {
        pyb::gil_scoped_release release;
        result = sys::runProgram(file, base, modes);
    }
    return fromJson(result);
}

} // namespace

void defineKernelProgram(pyb::module_& m) {
    m.def("time_program", &timeProgram, "kernels"_a, "schedule"_a, "backend"_a, "hw"_a, "sets"_a,
          "orchestration"_a, "steprdu.Program.time's core (use steprdu.Program).");
}

} // namespace steprdu::py
