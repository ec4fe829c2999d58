#include "system/KernelTimer.h"

#include <algorithm>

#include <fmt/format.h>

#include "hw/pnr/Lowering.h"
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
} // namespace

nlohmann::json KernelTimer::run(const std::string& testbench, const std::vector<std::string>& knobs) {
    const std::string key = keyOf(testbench, knobs);
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    tb::RunRequest r = base_;
    r.testbench = testbench;
    r.knobs = knobs;
    nlohmann::json result = tb::runTestbench(r);
    if (base_.backend == "roofline") {
        // The roofline places nothing: the units come from lowering, as place and route would give them.
        const hw::HwConfig& cfg = cfg_;
        const tb::Testbench& t = tb::findTestbench(testbench);
        tb::Workload w = t.build(tb::Knobs(testbench, t.knobs(), knobs), false);
        auto units = hw::pnr::lower(w.graph, cfg, tb::loweringOptions(w));
        // Off-chip operators stripe over AGCUs they may share: at most the chip's.
        int agcus = 0;
        for (int a : units.agcus)
            agcus += a;
        agcus = std::min(agcus, cfg.chip.tiles() * cfg.chip.agcus_per_tile);
        result["units_lowered"] = {{"pcu", units.total(hw::UnitKind::Pcu)},
                                   {"pmu", units.total(hw::UnitKind::Pmu)},
                                   {"agcu", agcus}};
    }
    ++runs_;
    return memo_[key] = std::move(result);
}

Kernel KernelTimer::time(const KernelSpec& spec, bool looping) {
    if (base_.backend != "roofline" && base_.backend != "cycle")
        throw BadInput(
            fmt::format("kernel '{}': expected the roofline or cycle backend to time it, found '{}'",
                        spec.name, base_.backend));
    const nlohmann::json one = run(spec.testbench, spec.knobs);
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
    if (looping && !spec.loopKnob.empty()) {
        std::vector<std::string> two;
        for (const auto& kv : spec.knobs)
            if (kv.rfind(spec.loopKnob + "=", 0) != 0) two.push_back(kv);
        two.push_back(spec.loopKnob + "=2");
        const std::int64_t t2 = run(spec.testbench, two).at("cycles").get<std::int64_t>();
        // At worst the outer loop runs its iterations one after another, as separate calls would.
        k.loopInterval = std::clamp<std::int64_t>(t2 - k.cycles, 1, k.cycles);
    }
    return k;
}

} // namespace steprdu::sys
