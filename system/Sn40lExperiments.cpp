#include "system/Sn40lExperiments.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "hw/config/HwConfigLoader.h"
#include "system/ProgramFile.h"
#include "util/Error.h"

namespace steprdu::sys {

namespace {

constexpr int kLayers = 32;    // Llama2-7B
constexpr int kContext = 4096; // the paper's 4K
constexpr int kPrompt = 4096;  // prefill: 4K tokens through the layer
const std::vector<int> kBatches = {1, 8};
const std::vector<double> kHostSweepUs = {1, 3, 10, 30, 100};

std::string decodeKnobs(int batch) {
    return fmt::format("model: llama2, batch: {}, kv_len: {}, max_n: {}", batch, kContext,
                       (kContext / 32 + 1) * 32);
}

// The programs, as a user would write them (examples/programs).
std::string unfusedProgram(int batch, bool prefill) {
    return fmt::format(
        "kernels:\n  - {{name: layer, testbench: decoder, knobs: {{model: llama2, fusion: operator, "
        "batch: {}, kv_len: {}{}}}}}\nschedule:\n  - {{kernel: layer, repeat: {}}}\n",
        batch, prefill ? kPrompt : kContext, prefill ? ", phase: prefill, op_compute_bw: 131072" : "",
        kLayers);
}
std::string fusedProgram(int batch) {
    return fmt::format("kernels:\n  - {{name: layer, testbench: decoder, knobs: {{{}}}, loop_knob: layers}}\n"
                       "schedule:\n  - {{kernel: layer, repeat: {}}}\n",
                       decodeKnobs(batch), kLayers);
}

// Times every kernel of a program file's text (once per distinct kernel across the experiment).
Program timed(KernelTimer& timer, const std::string& text, const std::string& where, bool looping) {
    const ProgramFile f = parseProgram(text, where);
    Program p;
    p.calls = f.calls;
    for (const auto& spec : f.kernels)
        p.kernels.push_back(timer.time(spec, looping));
    return p;
}

std::int64_t offChipBytes(const Program& p) {
    std::int64_t b = 0;
    for (int k : p.calls)
        b += p.kernels[k].offChipBytes;
    return b;
}

nlohmann::json row(const std::string& workload, int batch, const std::string& backend,
                   const std::string& fusion, Orchestration o, const Program& p, const hw::HwConfig& cfg,
                   std::int64_t tokens) {
    const LaunchModel launch(cfg);
    const ProgramTime t = timeProgram(p, o, launch);
    const double hz = cfg.clock_ghz * 1e9, s = static_cast<double>(t.total()) / hz;
    const double bytes = static_cast<double>(offChipBytes(p));
    const double peak = hw::tierPeakBytesPerCycle(cfg, hw::Tier::Hbm) * hz;
    auto ms = [&](std::int64_t c) { return static_cast<double>(c) / hz * 1e3; };
    return {{"workload", workload},
            {"batch", batch},
            {"backend", backend},
            {"fusion", fusion},
            {"orchestration", nameOf(o)},
            {"host_round_trip_us", cfg.launch.host_round_trip_us},
            {"calls", p.calls.size()},
            {"launches", t.launches.size()},
            {"ms", s * 1e3},
            {"tokens_per_s", static_cast<double>(tokens) / s},
            {"hbm_gb_per_s", bytes / s / 1e9},
            {"hbm_share", bytes / s / peak},
            {"host_ms", ms(t.host)},
            {"program_load_ms", ms(t.programLoad)},
            {"argument_load_ms", ms(t.argumentLoad)},
            {"execute_ms", ms(t.execute)}};
}

SystemExperiment fig10(const tb::RunRequest& base,
                       const std::function<void(int, int, const std::string&)>& progress) {
    SystemExperiment e;
    e.name = "sn40l_fig10";
    e.columns = {"workload",
                 "batch",
                 "backend",
                 "fusion",
                 "orchestration",
                 "host_round_trip_us",
                 "calls",
                 "launches",
                 "ms",
                 "tokens_per_s",
                 "hbm_gb_per_s",
                 "hbm_share",
                 "host_ms",
                 "program_load_ms",
                 "argument_load_ms",
                 "execute_ms",
                 "speedup_over_unfused",
                 "ho_over_so"};
    const hw::HwConfig cfg = tb::hardwareOf(base);
    KernelTimer timer(base, cfg);
    const bool cycle = base.backend == "cycle";
    const int total = static_cast<int>(kBatches.size()) * 2 + (cycle ? 0 : 1);
    int done = 0;
    auto step = [&](const std::string& what) {
        if (progress) progress(++done, total, what);
    };
    for (int batch : kBatches) {
        step(fmt::format("decode batch {}: unfused", batch));
        const Program unfused = timed(timer, unfusedProgram(batch, false), "sn40l_fig10 unfused", false);
        step(fmt::format("decode batch {}: fused", batch));
        const Program fused = timed(timer, fusedProgram(batch), "sn40l_fig10 fused", true);
        auto sweepPoint = [&](double hostUs, bool sweep) {
            hw::HwConfig c = cfg;
            c.launch.host_round_trip_us = hostUs;
            const std::string w = sweep ? "decode_host_sweep" : "decode";
            std::vector<nlohmann::json> rows = {
                row(w, batch, base.backend, "operator", Orchestration::Software, unfused, c, batch),
                row(w, batch, base.backend, "layer", Orchestration::Software, fused, c, batch),
                row(w, batch, base.backend, "layer", Orchestration::Hardware, fused, c, batch),
                row(w, batch, base.backend, "layer", Orchestration::Looping, fused, c, batch)};
            const double unfusedMs = rows[0]["ms"].get<double>(), soMs = rows[1]["ms"].get<double>();
            for (auto& r : rows) {
                r["speedup_over_unfused"] = unfusedMs / r["ms"].get<double>();
                r["ho_over_so"] = r["fusion"] == "layer" ? soMs / r["ms"].get<double>() : 1.0;
                e.rows.push_back(r);
            }
        };
        sweepPoint(cfg.launch.host_round_trip_us, false);
        for (double us : kHostSweepUs)
            sweepPoint(us, true);
    }
    // Prefill has no fused graph here; software against hardware orchestration of its unfused program
    // shows how little launches weigh beside kernels of milliseconds. The roofline only: the cycle level
    // would run a 4K-token layer operator by operator for hours.
    if (!cycle) {
        step("prefill batch 1: unfused");
        const Program unfused = timed(timer, unfusedProgram(1, true), "sn40l_fig10 prefill", false);
        std::vector<nlohmann::json> rows = {
            row("prefill", 1, base.backend, "operator", Orchestration::Software, unfused, cfg, kPrompt),
            row("prefill", 1, base.backend, "operator", Orchestration::Hardware, unfused, cfg, kPrompt)};
        for (auto& r : rows) {
            r["speedup_over_unfused"] = rows[0]["ms"].get<double>() / r["ms"].get<double>();
            r["ho_over_so"] = rows[0]["ms"].get<double>() / r["ms"].get<double>();
            e.rows.push_back(r);
        }
    }
    return e;
}

// Kernel calls per forward pass need no timing: the programs' schedules alone.
SystemExperiment fig11() {
    SystemExperiment e;
    e.name = "sn40l_fig11";
    e.columns = {"workload", "unfused_calls", "fused_calls", "ratio", "paper_ratio"};
    auto calls = [](const std::string& text) { return parseProgram(text, "sn40l_fig11").calls.size(); };
    for (int batch : kBatches) {
        const auto u = calls(unfusedProgram(batch, false)), f = calls(fusedProgram(batch));
        e.rows.push_back({{"workload", fmt::format("llama2_7b_4k_decode_b{}", batch)},
                          {"unfused_calls", u},
                          {"fused_calls", f},
                          {"ratio", double(u) / double(f)},
                          {"paper_ratio", nullptr}});
    }
    // A fused prefill layer is one kernel as decode's is (SN40L section VI-B: a whole decoder layer per
    // call).
    const auto u = calls(unfusedProgram(1, true));
    e.rows.push_back({{"workload", "llama2_7b_4k_prefill"},
                      {"unfused_calls", u},
                      {"fused_calls", kLayers},
                      {"ratio", double(u) / kLayers},
                      {"paper_ratio", 11.0}});
    return e;
}

} // namespace

const std::vector<std::string>& systemExperimentNames() {
    static const std::vector<std::string> names = {"sn40l_fig10", "sn40l_fig11"};
    return names;
}

bool isSystemExperiment(const std::string& name) {
    const auto& n = systemExperimentNames();
    return std::find(n.begin(), n.end(), name) != n.end();
}

std::string systemExperimentDescription(const std::string& name) {
    if (name == "sn40l_fig10")
        return "SN40L Fig 10 on one socket: Llama2-7B 4K decode (batch 1, 8), unfused + SO, fused + SO / HO "
               "/ "
               "looping; tokens/s, HBM bandwidth, time split, the host round trip swept";
    if (name == "sn40l_fig11")
        return "SN40L Fig 11: kernel calls unfused / fused, Llama2-7B 4K decode and prefill";
    throw BadInput(fmt::format("experiment: expected {}, found '{}'", "sn40l_fig10 or sn40l_fig11", name));
}

SystemExperiment runSystemExperiment(const std::string& name, const tb::RunRequest& base,
                                     const std::function<void(int, int, const std::string&)>& progress) {
    if (base.backend != "roofline" && base.backend != "cycle")
        throw BadInput(fmt::format("--backend: expected roofline or cycle, found '{}'", base.backend));
    SystemExperiment e = name == "sn40l_fig10" ? fig10(base, progress)
                         : name == "sn40l_fig11"
                             ? fig11()
                             : throw BadInput(fmt::format(
                                   "experiment: expected sn40l_fig10 or sn40l_fig11, found '{}'", name));
    e.description = systemExperimentDescription(name);
    return e;
}

std::string systemExperimentCsv(const SystemExperiment& e) {
    std::string out;
    for (std::size_t i = 0; i < e.columns.size(); ++i)
        out += (i ? "," : "") + e.columns[i];
    out += "\n";
    for (const auto& r : e.rows) {
        for (std::size_t i = 0; i < e.columns.size(); ++i) {
            const auto& v = r.contains(e.columns[i]) ? r[e.columns[i]] : nlohmann::json();
            out += i ? "," : "";
            if (v.is_string())
                out += v.get<std::string>();
            else if (v.is_number_float())
                out += fmt::format("{:.6g}", v.get<double>());
            else if (!v.is_null())
                out += v.dump();
        }
        out += "\n";
    }
    return out;
}

} // namespace steprdu::sys
