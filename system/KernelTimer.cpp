#include "system/KernelTimer.h"

#include <algorithm>

#include <fmt/format.h>

#include "hw/pnr/Lowering.h"
#include "system/ProgramLoad.h"
#include "testbenches/Testbench.h"
#include "util/Error.h"

namespace steprdu::sys {

namespace {
std::string keyOf(const std::string& testbench, const std::vector<std::string>& knobs) {
    std::string k = testbench;
    for (const auto& kv : knobs)
        k += " " + kv;
    return k;
}

// The roofline places nothing: the units come from lowering, as place and route would give them.
nlohmann::json unitsLowered(const tb::Workload& w, const hw::HwConfig& cfg) {
    auto units = hw::pnr::lower(w.graph, cfg, tb::loweringOptions(w));
    // Off-chip operators stripe over AGCUs they may share: at most the chip's.
    int agcus = 0;
    for (int a : units.agcus)
        agcus += a;
    agcus = std::min(agcus, cfg.chip.tiles() * cfg.chip.agcus_per_tile);
    return {
        {"pcu", units.total(hw::UnitKind::Pcu)}, {"pmu", units.total(hw::UnitKind::Pmu)}, {"agcu", agcus}};
}

} // namespace

nlohmann::json KernelTimer::run(const std::string& testbench, const std::vector<std::string>& knobs,
                                bool units) {
    const std::string key = keyOf(testbench, knobs) + (units ? "" : " (cycles)");
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    tb::RunRequest r = base_;
    r.testbench = testbench;
    r.knobs = knobs;
    nlohmann::json result = tb::runTestbench(r);
    if (base_.backend == "roofline" && units) {
        const tb::Testbench& t = tb::findTestbench(testbench);
        result["units_lowered"] = unitsLowered(t.build(tb::Knobs(testbench, t.knobs(), knobs), false), cfg_);
    }
    ++runs_;
    return memo_[key] = std::move(result);
}

nlohmann::json KernelTimer::run(const KernelSpec& spec) {
    if (!spec.workload) return run(spec.testbench, spec.knobs);
    const std::string key = "graph " + spec.name;
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    tb::Workload& w = *spec.workload;
    nlohmann::json result = tb::runWorkload(base_, cfg_, w);
    if (base_.backend == "roofline") result["units_lowered"] = unitsLowered(w, cfg_);
    ++runs_;
    return memo_[key] = std::move(result);
}

std::pair<std::int64_t, std::int64_t> KernelTimer::moveProgram(std::int64_t bytes, int agcus) {
    const auto key = std::make_pair(bytes, agcus);
    auto it = moves_.find(key);
    if (it != moves_.end()) return it->second;
    tb::RunRequest r = base_;
    r.testbench = "program_load";
    r.knobs.clear();
    r.placement.clear();
    r.functional = false;
    r.trace = false;
    const std::string tier(nameOf(cfg_.launch.program_tier));
    r.sets.push_back("memory.place.weights=" + tier);
    const hw::HwConfig cfg = tb::hardwareOf(r);
    tb::Workload w = programLoadWorkload(bytes, agcus);
    const nlohmann::json res = tb::runWorkload(r, cfg, w);
    const std::int64_t read =
        static_cast<std::int64_t>(res.at("memory").at(tier).at("bytes_read").get<double>());
    return moves_[key] = {res.at("cycles").get<std::int64_t>(), read};
}

Kernel KernelTimer::time(const KernelSpec& spec, bool looping) {
    if (base_.backend != "roofline" && base_.backend != "cycle")
        throw BadInput(
            fmt::format("kernel '{}': expected the roofline or cycle backend to time it, found '{}'",
                        spec.name, base_.backend));
    nlohmann::json one;
    try {
        one = run(spec);
    } catch (const BadInput& e) {
        throw BadInput(fmt::format("kernel '{}' ({}): {}", spec.name,
                                   spec.workload ? std::string("a graph") : spec.testbench, e.what()));
    }
    Kernel k;
    k.name = spec.name;
    k.cycles = one.at("cycles").get<std::int64_t>();
    k.offChipBytes = one.value("off_chip_bytes", std::int64_t{0});
    const nlohmann::json& u =
        one.contains("units_lowered") ? one["units_lowered"] : one.at("pnr").at("units");
    auto used = [&](const char* kind) {
        const auto& v = u.at(kind);
        return v.is_object() ? v.at("used").get<int>() : v.get<int>();
    };
    k.footprint.pcus = used("pcu");
    k.footprint.pmus = used("pmu");
    k.footprint.agcus = used("agcu");
    k.footprint.switches = k.footprint.pcus + k.footprint.pmus;
    if (base_.backend == "cycle") {
        const auto [cycles, tierBytes] =
            moveProgram(LaunchModel(cfg_).programBytes(k.footprint), k.footprint.agcus);
        k.programMoveCycles = cycles;
        k.programTierBytes = tierBytes;
    }
    if (looping && !spec.loopKnob.empty() && !spec.workload) {
        std::vector<std::string> two;
        for (const auto& kv : spec.knobs)
            if (kv.rfind(spec.loopKnob + "=", 0) != 0) two.push_back(kv);
        two.push_back(spec.loopKnob + "=2");
        // Two iterations side by side may not fit the chip where one does: then the iterations are taken as
        // not overlapping at all (the interval is a whole call), and the program says so.
        try {
            const std::int64_t t2 = run(spec.testbench, two, false).at("cycles").get<std::int64_t>();
            // At worst the outer loop runs its iterations one after another, as separate calls would.
            k.loopInterval = std::clamp<std::int64_t>(t2 - k.cycles, 1, k.cycles);
        } catch (const BadInput& e) {
            k.loopInterval = k.cycles;
            k.loopNote = fmt::format("{}=2 does not fit ({}): iterations taken as one after another",
                                     spec.loopKnob, e.what());
        }
    }
    return k;
}

} // namespace steprdu::sys
