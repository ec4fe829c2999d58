#include "testbenches/DiffTest.h"

#include <cmath>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "hw/CycleSimulator.h"
#include "hw/arch/ChipLayout.h"
#include "hw/config/HwConfigLoader.h"
#include "step_ops/Interpreter.h"
#include "step_ops/Metrics.h"
#include "testbenches/Runner.h"
#include "util/Error.h"
#include "util/ForkRun.h"
#include "util/Json.h"

namespace steprdu::tb {

namespace {

// The backend a failure reason names (its prefix), for the reproducing command.
std::string backendOf(const std::string& reason) {
    for (const char* b : {"roofline", "cycle"})
        if (reason.rfind(b, 0) == 0) return b;
    return "interp";
}

Workload workloadOf(RandomProgram p, std::int64_t depth) {
    Workload w;
    w.graph = std::move(p.graph);
    w.bindings = std::move(p.bindings);
    w.channelDepth = depth;
    return w;
}

// The options' hardware with its overrides, resolved once per difftest rather than once per program.
hw::HwConfig hardwareOf(const DiffTestOptions& o) {
    auto cfg = hw::loadHwConfig(o.hw);
    for (const auto& s : o.sets)
        hw::applyOverride(cfg, s);
    return cfg;
}

std::string check(const RandomProgramPlan& plan, const DiffTestOptions& o, const hw::HwConfig& cfg) {
    const auto has = [&](const std::string& b) {
        return std::find(o.backends.begin(), o.backends.end(), b) != o.backends.end();
    };
    step::BoundMetrics m;
    {
        Workload w = workloadOf(buildRandomProgram(plan), o.channelDepth);
        try {
            m = step::bindMetrics(w.graph, step::analyzeGraph(w.graph), w.bindings);
        } catch (const BadInput& e) {
            return fmt::format("metrics: {}", e.what());
        }
    }
    const auto bytes = [&](const std::string& who, std::int64_t got) -> std::string {
        if (got == m.offChipBytes) return "";
        return fmt::format("{}: off-chip bytes {}", who,
                           expectedFound(fmt::format("{} (symbolic)", m.offChipBytes), std::to_string(got)));
    };
    // The interpreter is the reference for the cycle backend's values, so it runs whenever either is asked.
    std::unique_ptr<step::Interpreter> interp;
    Workload golden = workloadOf(buildRandomProgram(plan), o.channelDepth);
    if (has("interp") || has("cycle")) {
        interp = std::make_unique<step::Interpreter>(true);
        try {
            auto r = interp->run(golden.graph);
            if (auto e = bytes("interp", r.offChipReadBytes + r.offChipWriteBytes); !e.empty()) return e;
        } catch (const StepError& e) {
            return fmt::format("interp: {}", e.what());
        }
    }
    if (has("roofline")) {
        Workload w = workloadOf(buildRandomProgram(plan), o.channelDepth);
        try {
            auto r = roofline::RooflineSimulator(rooflineOptions(cfg, w)).run(w.graph);
            if (auto e = bytes("roofline", r.offChipReadBytes + r.offChipWriteBytes); !e.empty()) return e;
        } catch (const StepError& e) {
            return fmt::format("roofline: {}", e.what());
        }
    }
    if (has("cycle")) {
        nlohmann::json r;
        try {
            r = runCycleInChild(
                [&] {
                    Workload w = workloadOf(buildRandomProgram(plan), o.channelDepth);
                    if (o.cycleFault) o.cycleFault(w.graph);
                    return w;
                },
                cfg);
        } catch (const StepError& e) {
            return fmt::format("cycle: {}", e.what());
        }
        if (auto e = bytes("cycle", r["off_chip_bytes"].get<std::int64_t>()); !e.empty()) return e;
        if (auto e = firstDifference(golden.graph, interp->memory(), r["tensors"]); !e.empty())
            return "cycle: " + e;
        const double cycles = r["cycles"].get<double>();
        const double memBound = double(m.offChipBytes) / r["memory_peak_bytes_per_cycle"].get<double>();
        const double chipFlops =
            double(hw::ChipLayout(cfg.chip).numUnits(hw::UnitKind::Pcu) * cfg.pcu.peakFlopsPerCycle());
        const double computeBound = double(m.flops) / chipFlops;
        if (cycles < std::floor(memBound))
            return fmt::format("cycle: {} cycles beat the memory bound of {:.1f} ({} bytes at peak)", cycles,
                               memBound, m.offChipBytes);
        if (cycles < std::floor(computeBound))
            return fmt::format(
                "cycle: {} cycles beat the compute bound of {:.1f} ({} FLOPs at the chip's peak)", cycles,
                computeBound, m.flops);
    }
    return "";
}

// Drops whole chains, then trailing steps, while the program still fails on the same backend.
RandomProgramPlan minimize(RandomProgramPlan plan, std::string& reason, const DiffTestOptions& o,
                           const hw::HwConfig& cfg) {
    const std::string backend = backendOf(reason);
    const auto stillFails = [&](const RandomProgramPlan& p) {
        std::string r;
        try {
            r = check(p, o, cfg);
        } catch (const StepError& e) {
            r = e.what();
        }
        if (r.empty() || backendOf(r) != backend) return false;
        reason = r;
        return true;
    };
    for (std::size_t i = 0; plan.chains.size() > 1 && i < plan.chains.size();) {
        auto smaller = plan;
        smaller.chains.erase(smaller.chains.begin() + static_cast<std::ptrdiff_t>(i));
        if (stillFails(smaller))
            plan = smaller;
        else
            ++i;
    }
    for (std::size_t i = 0; i < plan.chains.size(); ++i)
        while (plan.chains[i].steps > 0) {
            auto smaller = plan;
            --smaller.chains[i].steps;
            if (!stillFails(smaller)) break;
            plan = smaller;
        }
    return plan;
}

} // namespace

std::string firstDifference(const step::Graph& g, const step::TensorStore& want, const nlohmann::json& got) {
    for (std::size_t t = 0; t < g.tensors().size(); ++t) {
        const auto& a = want.values(static_cast<int>(t));
        const auto b = floatsFromJson(got.at(t), "cycle backend: tensor '" + g.tensors()[t].name + "'");
        if (a.size() != b.size())
            return fmt::format("tensor '{}' has {} values on the cycle backend, {} on the interpreter",
                               g.tensors()[t].name, b.size(), a.size());
        for (std::size_t i = 0; i < a.size(); ++i)
            if (a[i] != b[i] && !(std::isnan(a[i]) && std::isnan(b[i])))
                return fmt::format(
                    "tensor '{}' value {}: {}", g.tensors()[t].name, i,
                    expectedFound(fmt::format("{} (interpreter)", a[i]), fmt::format("{}", b[i])));
    }
    return "";
}

nlohmann::json runCycleInChild(const std::function<Workload()>& build, const hw::HwConfig& cfg) {
    return runInChild([&]() -> nlohmann::json {
        Workload w = build();
        hw::CycleOptions co;
        co.streams = loweringOptions(w);
        co.functional = true;
        co.watchdogCycles = kDefaultWatchdogCycles;
        step::TensorStore store(w.graph, true);
        auto res = hw::CycleSimulator(cfg, co).run(w.graph, store);
        nlohmann::json tensors = nlohmann::json::array();
        for (std::size_t t = 0; t < w.graph.tensors().size(); ++t)
            tensors.push_back(floatsToJson(store.values(static_cast<int>(t))));
        double peak = 0;
        for (const auto& [tier, mem] : res.summary["memory"].items())
            peak += mem["peak_bytes_per_cycle"].get<double>();
        return {{"cycles", res.cycles},
                {"off_chip_bytes", res.summary["simulated_off_chip_bytes"]},
                {"memory_peak_bytes_per_cycle", peak},
                {"tensors", tensors}};
    });
}

nlohmann::json randomProgramJson(const RandomProgram& p) {
    nlohmann::json j = p.graph.toJson();
    j["bindings"] = p.bindings;
    return j;
}

std::string checkRandomProgram(const RandomProgramPlan& plan, const DiffTestOptions& o) {
    try {
        return check(plan, o, hardwareOf(o));
    } catch (const StepError& e) {
        return e.what();
    }
}

DiffTestReport runDiffTest(std::uint64_t seed, int count, const DiffTestOptions& o) {
    for (const auto& b : o.backends)
        checkBackend("--backends", b);
    const hw::HwConfig cfg = hardwareOf(o); // bad hardware is refused before any program runs
    DiffTestReport rep;
    for (int i = 0; i < count; ++i) {
        const std::uint64_t s = seed + static_cast<std::uint64_t>(i);
        const auto plan = planRandomProgram(s);
        {
            const auto p = buildRandomProgram(plan);
            for (const auto& f : p.families)
                ++rep.families[f];
            rep.operators += p.graph.numOps();
        }
        ++rep.programs;
        std::string reason;
        try {
            reason = check(plan, o, cfg);
        } catch (const StepError& e) {
            reason = e.what();
        }
        if (reason.empty()) {
            ++rep.passed;
        } else {
            const auto small = minimize(plan, reason, o, cfg);
            DiffTestFailure f{s, reason, "", ""};
            std::filesystem::create_directories(o.outDir);
            f.reproducer = (std::filesystem::path(o.outDir) / fmt::format("difftest-{}.json", s)).string();
            std::ofstream(f.reproducer) << randomProgramJson(buildRandomProgram(small)).dump(1) << "\n";
            const std::string backend = backendOf(reason);
            f.command = fmt::format("steprdu run-graph {} --backend {}{} --hw {}", f.reproducer, backend,
                                    backend == "cycle" ? " --functional" : "", o.hw);
            for (const auto& set : o.sets)
                f.command += " --set " + set;
            f.command += fmt::format(" depth={}", o.channelDepth);
            rep.failures.push_back(f);
        }
        if (o.progress) o.progress(i + 1, count, static_cast<int>(rep.failures.size()));
    }
    return rep;
}

nlohmann::json DiffTestReport::toJson() const {
    nlohmann::json seeds = nlohmann::json::array(), fails = nlohmann::json::array();
    for (const auto& f : failures) {
        seeds.push_back(f.seed);
        fails.push_back(
            {{"seed", f.seed}, {"reason", f.reason}, {"reproducer", f.reproducer}, {"command", f.command}});
    }
    return {{"programs", programs},   {"passed", passed},  {"failed", programs - passed},
            {"failing_seeds", seeds}, {"failures", fails}, {"operators", operators},
            {"families", families}};
}

} // namespace steprdu::tb
