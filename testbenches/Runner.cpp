#include "testbenches/Runner.h"
#include "testbenches/Sections.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "hw/CycleSimulator.h"
#include "hw/config/HwConfigLoader.h"
#include "hw/config/StepCompat.h"
#include "hw/mem/MemoryMap.h"
#include "hw/mem/StepNodeTier.h"
#include "hw/pnr/Floorplan.h"
#include "hw/pnr/PlaceAndRoute.h"
#include "hw/sim/Stats.h"
#include "step_ops/Metrics.h"
#include "util/Error.h"
#include "util/ForkRun.h"
#include "util/Json.h"
#include "util/Strings.h"

namespace steprdu::tb {

nlohmann::json workloadMetrics(const Workload& w, const step::Bindings& observed) {
    auto sym = step::analyzeGraph(w.graph);
    step::Bindings b = w.bindings;
    b.insert(observed.begin(), observed.end()); // a given binding wins
    auto m = step::bindMetrics(w.graph, sym, b);
    return {{"off_chip_bytes", m.offChipBytes},
            {"on_chip_bytes", m.onChipBytes},
            {"on_chip_bytes_active", m.onChipBytesActive},
            {"on_chip_bytes_paper", m.onChipBytesPaper},
            {"flops", w.figureFlops},
            {"padded_flops", w.paddedFlops},
            {"graph_flops", m.flops},
            {"allocated_flops_per_cycle", m.allocatedFlopsPerCycle},
            {"expressions",
             {{"off_chip_bytes", sym.offChipBytes.str()},
              {"on_chip_bytes", sym.onChipBytes.str()},
              {"on_chip_bytes_paper", sym.onChipBytesPaper.str()},
              {"graph_flops", sym.flops.str()}}}};
}

hw::pnr::LoweringOptions loweringOptions(const Workload& w) {
    hw::pnr::LoweringOptions o;
    o.timingElemBytes = w.timingElemBytes;
    o.channelDepth = w.channelDepth;
    o.depthByProducer = w.depthByProducer;
    o.phases = w.phases;
    o.bindings = w.bindings;
    o.rateBindings = w.rateBindings;
    return o;
}

roofline::RooflineOptions rooflineOptions(const hw::HwConfig& cfg, const Workload& w) {
    roofline::RooflineOptions o;
    o.pmuBytesPerCycle = cfg.pmu.bandwidth_bytes_per_cycle;
    o.hbm = hw::stepNodeParams(cfg);
    o.damCredits = cfg.roofline.step_compat;
    o.broadcastDefaultDepth = cfg.roofline.step_compat;
    o.reassembleArrivalOnly = cfg.roofline.step_compat;
    o.timingElemBytes = w.timingElemBytes;
    o.channelDepth = cfg.roofline.channel_depth ? cfg.roofline.channel_depth : w.channelDepth;
    o.depthByProducer = w.depthByProducer;
    return o;
}

namespace {

// Every off-chip tensor of two functional runs of the same graph, element by element. `equal` compares bits,
// so that NaN (with its payload), infinities and -0 must come back exactly; the norm-wise figures are taken
// over the elements that are finite in both runs, and the others are counted.
nlohmann::json compareMemories(const step::Graph& g, const step::TensorStore& got,
                               const step::TensorStore& want) {
    double num = 0, den = 0, maxAbs = 0;
    std::int64_t differing = 0, nonFinite = 0;
    for (std::size_t t = 0; t < g.tensors().size(); ++t) {
        const auto &a = got.values(static_cast<int>(t)), &b = want.values(static_cast<int>(t));
        if (a.size() != b.size())
            return {{"tensors", g.tensors().size()},
                    {"equal", false},
                    {"differing_elements", std::max(a.size(), b.size())},
                    {"error", fmt::format("tensor '{}' has {} values; the interpreter's has {}",
                                          g.tensors()[t].name, a.size(), b.size())}};
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (floatBits(a[i]) != floatBits(b[i])) ++differing;
            if (!std::isfinite(a[i]) || !std::isfinite(b[i])) {
                ++nonFinite;
                continue;
            }
            double d = double(a[i]) - double(b[i]);
            num += d * d;
            den += double(b[i]) * b[i];
            maxAbs = std::max(maxAbs, std::abs(d));
        }
    }
    return {{"tensors", g.tensors().size()},
            {"equal", differing == 0},
            {"differing_elements", differing},
            {"non_finite_elements", nonFinite},
            {"max_abs_difference", maxAbs},
            {"rel_difference", den > 0 ? std::sqrt(num / den) : std::sqrt(num)}};
}

// The request's limits, progress callback and timeline on either timed backend's options.
template <class Options>
void applyLimits(const RunRequest& req, Options& o, std::optional<Timeline>& timeline) {
    o.maxCycles = req.maxCycles;
    o.maxWallSeconds = req.maxWallSeconds;
    o.watchdogCycles = req.watchdogCycles;
    o.progress = req.progress;
    if (req.trace) o.timeline = &timeline.emplace(req.traceFrom, req.traceTo);
}

// Every off-chip tensor's values, by name (functional runs).
std::map<std::string, std::vector<float>> tensorValues(const step::Graph& g, const step::TensorStore& store) {
    std::map<std::string, std::vector<float>> out;
    for (std::size_t t = 0; t < g.tensors().size(); ++t)
        out[g.tensors()[t].name] = store.values(static_cast<int>(t));
    return out;
}

// The same, as it crosses from the simulation's child process: every bit kept (util/Json.h).
nlohmann::json tensorValuesJson(const step::Graph& g, const step::TensorStore& store) {
    nlohmann::json out = nlohmann::json::object();
    for (std::size_t t = 0; t < g.tensors().size(); ++t)
        out[g.tensors()[t].name] = floatsToJson(store.values(static_cast<int>(t)));
    return out;
}

// The file `--placement` names: itself, or a directory's pnr.json (`steprdu pnr --out`) or result.json
// (`run --out`).
std::string placementFile(const std::string& path) {
    namespace fs = std::filesystem;
    if (fs::is_directory(path)) {
        for (const char* name : {"pnr.json", "result.json"})
            if (fs::is_regular_file(fs::path(path) / name)) return (fs::path(path) / name).string();
        throw BadInput(fmt::format("--placement {}: {}", path,
                                   expectedFound("a directory with pnr.json or result.json", "neither")));
    }
    if (!fs::is_regular_file(path))
        throw BadInput(fmt::format("--placement {}: no such file or directory", path));
    return path;
}

nlohmann::json readJsonFile(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
    if (!f.good() && !f.eof()) throw BadInput(fmt::format("{}: cannot read", path));
    if (j.is_discarded())
        throw BadInput(fmt::format("{}: {}", path, expectedFound("JSON", "a file that does not parse")));
    return j;
}

// One cycle-level run with the options `o` (placement, streams, values) and the request's limits: the result
// with the stats, trace and tensors `art` asks for.
nlohmann::json simulateOnce(const RunRequest& req, const hw::HwConfig& cfg, Workload& w,
                            const std::function<step::Graph()>& golden, RunArtifacts* art,
                            hw::CycleOptions& o) {
    std::optional<Timeline> timeline;
    applyLimits(req, o, timeline);
    step::TensorStore store(w.graph, req.functional);
    auto r = hw::CycleSimulator(cfg, o).run(w.graph, store);
    nlohmann::json out = r.summary;
    out["cycles"] = r.cycles;
    out["wall_seconds"] = r.wallSeconds;
    out["sim_cycles_per_second"] = r.wallSeconds > 0 ? r.cycles / r.wallSeconds : 0.0;
    out["events"] = r.events;
    out["events_per_second"] = r.wallSeconds > 0 ? r.events / r.wallSeconds : 0.0;
    if (req.functional) {
        if (w.check) out["rel_error"] = w.check(store);
        // The scoreboard: the interpreter's results on the same program.
        step::Graph g = golden();
        step::Interpreter interp(true);
        interp.run(g);
        out["scoreboard"] = compareMemories(w.graph, store, interp.memory());
        if (art) out["_tensors"] = tensorValuesJson(w.graph, store);
    }
    if (art) out["_stats"] = {{"json", r.stats.toJson()}, {"csv", r.stats.toCsv()}};
    if (timeline) out["_trace"] = timeline->json();
    return out;
}

// simulateOnce in a child process, placed and routed anew or on `placement` (a pnr.json read from `from`);
// without `progress`, silent.
ChildProcess startSimulation(const RunRequest& req, const hw::HwConfig& cfg, Workload& w,
                             const std::function<step::Graph()>& golden, RunArtifacts* art,
                             const nlohmann::json* placement, const std::string& from, bool progress = true) {
    return ChildProcess([&]() -> nlohmann::json {
        hw::CycleOptions o;
        o.streams = loweringOptions(w);
        o.functional = req.functional;
        if (placement) {
            o.placementFrom = from;
            o.placement = *placement;
        }
        RunRequest r = req;
        if (!progress) r.progress = nullptr;
        return simulateOnce(r, cfg, w, golden, art, o);
    });
}

// How many of the starts' placements a cycle run simulates to keep the fastest: pnr.evaluate of them, where
// the annealer has several starts to choose from.
int placementsToEvaluate(const hw::HwConfig& cfg) {
    if (cfg.rdn.topology != hw::Topology::Mesh || cfg.pnr.placer != hw::Placer::Anneal) return 1;
    return std::clamp(cfg.pnr.evaluate, 1, cfg.pnr.starts);
}

// Place and route with pnr.evaluate > 1: the best-ranked starts are each simulated in full (startSimulation,
// two at a time, only the best-ranked one reporting progress) and the one with the fewest cycles is kept, the
// ranking breaking ties. If the best-ranked start's run fails, that error is thrown, as without evaluating.
// The kept run's pnr.json gains "evaluated" (each start's seed and cycles, in ranked order) and the seconds
// spent in "seconds.evaluate".
struct Evaluation {
    std::vector<hw::pnr::PnrResult> ranked;
    std::size_t kept = 0;
    nlohmann::json result; // the kept run's
};
Evaluation evaluatePlacements(const RunRequest& req, const hw::HwConfig& cfg, Workload& w,
                              const std::function<step::Graph()>& golden, RunArtifacts* art) {
    w.graph.finalize();
    hw::MemoryMap::check(cfg); // before placing, as a single run checks it
    Evaluation e;
    e.ranked = hw::pnr::placeAndRouteRanked(w.graph, cfg, loweringOptions(w), placementsToEvaluate(cfg));
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t n = e.ranked.size();
    std::vector<nlohmann::json> results(n);
    std::vector<std::exception_ptr> errors(n);
    {
        // All started from this thread (ForkRun.h), collected in rank order.
        std::deque<std::pair<std::size_t, ChildProcess>> running;
        auto collect = [&] {
            auto& [i, child] = running.front();
            try {
                results[i] = child.result();
            } catch (...) {
                errors[i] = std::current_exception();
            }
            running.pop_front();
        };
        for (std::size_t i = 0; i < n; ++i) {
            if (running.size() == 2) collect();
            running.emplace_back(i,
                                 startSimulation(req, cfg, w, golden, art, &e.ranked[i].report, "", i == 0));
        }
        while (!running.empty())
            collect();
    }
    if (errors[0]) std::rethrow_exception(errors[0]);
    nlohmann::json evaluated = nlohmann::json::array();
    for (std::size_t i = 0; i < n; ++i) {
        const bool ran = !errors[i];
        evaluated.push_back(
            {{"seed", e.ranked[i].report["seed"]}, {"cycles", ran ? results[i]["cycles"] : nullptr}});
        if (ran && results[i]["cycles"].get<std::int64_t>() < results[e.kept]["cycles"].get<std::int64_t>())
            e.kept = i;
    }
    nlohmann::json& report = e.ranked[e.kept].report;
    report["evaluated"] = evaluated;
    report["seconds"]["evaluate"] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    e.result = std::move(results[e.kept]);
    return e;
}

nlohmann::json runCycle(const RunRequest& req, const hw::HwConfig& cfg, Workload& w,
                        const std::function<step::Graph()>& golden, RunArtifacts* art) {
    if (!req.placement.empty()) {
        const std::string file = placementFile(req.placement);
        const nlohmann::json placement = readJsonFile(file);
        return startSimulation(req, cfg, w, golden, art, &placement, file).result();
    }
    if (placementsToEvaluate(cfg) <= 1)
        return startSimulation(req, cfg, w, golden, art, nullptr, "").result();
    Evaluation e = evaluatePlacements(req, cfg, w, golden, art);
    e.result["pnr"] = e.ranked[e.kept].report; // placed here, not reused
    return e.result;
}

// The backend and the options that depend on it.
void checkRequest(const RunRequest& req) {
    if (!req.placement.empty() && req.backend != "cycle")
        throw BadInput(
            fmt::format("--placement: {}", expectedFound("--backend cycle (placements are the chip's)",
                                                         "--backend " + req.backend)));
    checkBackend("--backend", req.backend);
    if (req.trace && req.backend == "interp")
        throw BadInput(
            "--trace: " +
            expectedFound("--backend roofline or cycle (the interpreter has no time)", "--backend interp"));
    if (req.functional && req.backend != "cycle")
        throw BadInput(
            fmt::format("--functional: {}", expectedFound("--backend cycle (interp is always functional)",
                                                          "--backend " + req.backend)));
}

} // namespace

hw::HwConfig hardwareOf(const RunRequest& req) {
    auto cfg = hw::loadHwConfig(req.hw);
    for (auto& s : req.sets)
        hw::applyOverride(cfg, s);
    return cfg;
}

const std::vector<std::string>& backendNames() {
    static const std::vector<std::string> names{"roofline", "interp", "cycle"};
    return names;
}

void checkBackend(const std::string& where, const std::string& backend) {
    const auto& names = backendNames();
    if (std::find(names.begin(), names.end(), backend) != names.end()) return;
    const auto near = nearestWord(backend, names);
    throw BadInput(fmt::format("{}: {}{}", where,
                               expectedFound("roofline, interp or cycle", "'" + backend + "'"),
                               near ? "; did you mean '" + *near + "'?" : ""));
}

std::string stepCompatWarning(const RunRequest& req, const hw::HwConfig& cfg) {
    return hw::stepCompatWarning(req.sets, cfg, {req.backend == "roofline", req.backend == "cycle"});
}

nlohmann::json runTestbench(const RunRequest& req, RunArtifacts* art) {
    checkRequest(req);
    const auto cfg = hardwareOf(req);
    const auto& tbench = findTestbench(req.testbench);
    Knobs knobs(tbench.name(), tbench.knobs(), req.knobs);
    auto t0 = std::chrono::steady_clock::now();
    auto w = tbench.build(knobs, req.backend == "interp" || req.functional);
    nlohmann::json j = runWorkload(req, cfg, w, art, t0, [&] { return tbench.build(knobs, true).graph; });
    j["testbench"] = tbench.name();
    // A key set here whose meaning roofline.step_compat distorts: in result.json and on stderr.
    if (const auto warning = stepCompatWarning(req, cfg); !warning.empty()) {
        if (!j.contains("warnings") || !j["warnings"].is_array()) j["warnings"] = nlohmann::json::array();
        j["warnings"].push_back(warning);
    }
    return j;
}

namespace {

// Data-dependent sizes of the workload's metrics that its bindings leave open.
bool metricsNeedMoreBindings(const Workload& w) {
    const auto m = step::analyzeGraph(w.graph);
    for (const auto* e : {&m.offChipBytes, &m.onChipBytes, &m.onChipBytesPaper, &m.flops})
        if (!e->eval(w.bindings)) return true;
    return false;
}

// A run that moved other off-chip bytes than its bound metrics count had its symbols bound to other counts
// than the data gave them (or its metrics miss an access): said as a warning and in the result.
void checkMetricsAgainstRun(nlohmann::json& j) {
    if (!j.contains("simulated_off_chip_bytes") || !j["simulated_off_chip_bytes"].is_number()) return;
    const auto metric = j["off_chip_bytes"].get<std::int64_t>();
    const auto moved = j["simulated_off_chip_bytes"].get<std::int64_t>();
    j["metrics_agree_with_run"] = metric == moved;
    if (metric == moved) return;
    if (!j.contains("warnings") || !j["warnings"].is_array()) j["warnings"] = nlohmann::json::array();
    j["warnings"].push_back(fmt::format(
        "the bound metrics count {} off-chip bytes but the run moved {}: a binding gives a data-dependent "
        "size "
        "another count than the data did (check the bindings; the interpreter reports the counts it observed "
        "as observed_bindings)",
        metric, moved));
}

nlohmann::json runWorkloadOnce(const RunRequest& req, const hw::HwConfig& cfg, Workload& w, RunArtifacts* art,
                               std::chrono::steady_clock::time_point t0,
                               std::function<step::Graph()> golden) {
    checkRequest(req);
    step::checkBindingNames(w.graph, w.bindings);
    if (!golden && req.functional) // the program as given: the simulator finalizes the one it runs
        golden = [built = w.graph.toJson()] { return step::Graph::fromJson(built); };
    // The interpreter needs no bindings: it counts what the data give and binds the metrics with that.
    const bool metricsAfterRun = req.backend == "interp" && metricsNeedMoreBindings(w);
    nlohmann::json j = metricsAfterRun ? nlohmann::json::object() : workloadMetrics(w);
    j["backend"] = req.backend;
    j["hw"] = cfg.name;
    j["params"] = w.params;
    if (art) {
        art->config = cfg;
        art->graph = w.graph.toJson();
        // The data-dependent sizes travel with the graph, so that run-graph can bind its metrics.
        if (!w.bindings.empty()) art->graph["bindings"] = w.bindings;
        art->dot = w.graph.toDot();
    }
    auto wall = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    if (req.backend == "cycle") {
        nlohmann::json r = runCycle(req, cfg, w, golden, art);
        if (art && r.contains("_tensors")) { // from the child process
            for (const auto& [name, values] : r["_tensors"].items())
                art->tensors[name] = floatsFromJson(values, "the simulation's tensor '" + name + "'");
            r.erase("_tensors");
        }
        if (art && r.contains("_stats")) {
            art->stats = r["_stats"]["json"];
            art->statsCsv = r["_stats"]["csv"];
            r.erase("_stats");
        }
        if (r.contains("_trace")) {
            if (art) art->trace = r["_trace"].get<std::string>();
            r.erase("_trace");
        }
        j.update(r);
        j["warnings"] = j["pnr"]["warnings"];
        j["clock_ghz"] = cfg.clock_ghz;
        // The chip's HBM tier, whatever its device; the roofline's memory is always the published node.
        const double peak = hw::tierPeakBytesPerCycle(cfg, hw::Tier::Hbm);
        j["peak_offchip_bytes_per_cycle"] = peak;
        j["peak_flops_per_cycle"] =
            hw::ChipLayout(cfg.chip).numUnits(hw::UnitKind::Pcu) * cfg.pcu.peakFlopsPerCycle();
        const double cycles = j["cycles"].get<double>();
        j["off_chip_bw_utilization"] = cycles > 0 ? j["off_chip_bytes"].get<double>() / cycles / peak : 0.0;
        const double alloc = j["allocated_flops_per_cycle"].get<double>();
        j["compute_utilization"] = cycles > 0 && alloc > 0 ? double(w.figureFlops) / cycles / alloc : 0.0;
        const double pcuPeak = j["units_used"]["pcu"].get<double>() * cfg.pcu.peakFlopsPerCycle();
        j["pcu_utilization"] =
            cycles > 0 && pcuPeak > 0 ? j["graph_flops"].get<double>() / cycles / pcuPeak : 0.0;
        j["functional"] = req.functional;
        return j;
    }
    if (req.backend == "roofline") {
        auto o = rooflineOptions(cfg, w);
        std::optional<Timeline> timeline;
        applyLimits(req, o, timeline);
        auto r = roofline::RooflineSimulator(o).run(w.graph);
        if (art && timeline) art->trace = timeline->json();
        double s = wall();
        j["cycles"] = r.cycles;
        j["simulated_off_chip_bytes"] = r.offChipReadBytes + r.offChipWriteBytes;
        j["hbm_requests"] = r.hbm.requests;
        j["wall_seconds"] = s;
        j["sim_cycles_per_second"] = s > 0 ? r.cycles / s : 0.0;
        // Utilizations as the paper's scripts define them (docs/metrics.md).
        double peak = cfg.hbm.peakBytesPerCycle();
        j["off_chip_bw_utilization"] =
            r.cycles ? double(j["off_chip_bytes"].get<std::int64_t>()) / r.cycles / peak : 0.0;
        auto alloc = j["allocated_flops_per_cycle"].get<std::int64_t>();
        j["compute_utilization"] = r.cycles && alloc ? double(w.figureFlops) / r.cycles / alloc : 0.0;
        if (art) {
            // stats.json and stats.csv by operator, with the cycle backend's stat definitions.
            hw::StatsRegistry st;
            for (const auto& op : r.operators) {
                const std::string p = "roofline.operators." + identifier(op.name);
                st.add(p, "busy_cycles", static_cast<double>(op.busy));
                st.add(p, "finish_cycle", static_cast<double>(op.finish));
                st.add(p, "elements", static_cast<double>(op.elements));
            }
            st.add("roofline.hbm", "requests", static_cast<double>(r.hbm.requests));
            st.add("roofline.hbm", "bytes_read", static_cast<double>(r.offChipReadBytes));
            st.add("roofline.hbm", "bytes_written", static_cast<double>(r.offChipWriteBytes));
            st.add("roofline.hbm", "achieved_bytes_per_cycle",
                   r.cycles ? double(r.offChipReadBytes + r.offChipWriteBytes) / r.cycles : 0.0);
            st.add("roofline.hbm", "peak_bytes_per_cycle", peak);
            art->stats = st.toJson();
            art->statsCsv = st.toCsv();
            art->operators = nlohmann::json::array();
            for (auto& op : r.operators)
                art->operators.push_back({{"name", op.name},
                                          {"kind", op.kind},
                                          {"finish", op.finish},
                                          {"busy", op.busy},
                                          {"elements", op.elements}});
        }
        return j;
    }
    bool functional = w.params.value("functional", true);
    step::Interpreter interp(functional);
    auto r = interp.run(w.graph);
    j["cycles"] = nullptr;
    j["simulated_off_chip_bytes"] = r.offChipReadBytes + r.offChipWriteBytes;
    j["tokens_moved"] = r.tokensMoved;
    j["observed_bindings"] = r.observedSizes;
    if (metricsAfterRun) j.update(workloadMetrics(w, r.observedSizes));
    j["wall_seconds"] = wall();
    j["functional"] = functional;
    if (functional && w.check) j["rel_error"] = w.check(interp.memory());
    if (functional && art) art->tensors = tensorValues(w.graph, interp.memory());
    return j;
}

} // namespace

// pnr.on_overflow=sections on the chip: the sections one after another, each on an idle chip, their tensors
// carried from one to the next (testbenches/Sections.h). Cycles and moved bytes add up; the metrics are the
// whole graph's, beside the bytes the cuts stored (`cut_bytes`).
nlohmann::json runSections(const RunRequest& req, const hw::HwConfig& cfg, Workload& w, RunArtifacts* art,
                           std::chrono::steady_clock::time_point t0) {
    const std::vector<Section> sections = cutIntoSections(w, cfg);
    std::map<std::string, std::vector<float>> memory;
    nlohmann::json j, list = nlohmann::json::array();
    int shrunk = 0;
    std::int64_t cycles = 0, cutBytes = 0;
    double simulated = 0;
    for (const Section& s : sections) {
        const nlohmann::json graph = sectionGraph(s, memory);
        Workload ws = sectionWorkload(w, s, graph);
        RunArtifacts a;
        // The scoreboard's interpreter runs the section's file (a graph read back from a file is not written
        // out again: its feedback placeholders would collide).
        hw::HwConfig own = cfg;
        own.pnr.on_overflow = s.shrink ? hw::OnOverflow::Shrink : hw::OnOverflow::Error;
        shrunk += s.shrink;
        nlohmann::json r = runWorkloadOnce(req, own, ws, &a, std::chrono::steady_clock::now(),
                                           [graph] { return step::Graph::fromJson(graph); });
        for (auto& [name, values] : a.tensors)
            memory[name] = std::move(values);
        cycles += r.at("cycles").get<std::int64_t>();
        simulated += r.value("simulated_off_chip_bytes", 0.0);
        cutBytes += s.cutBytes;
        list.push_back({{"phases", s.phases},
                        {"cycles", r["cycles"]},
                        {"units_used", r["units_used"]},
                        {"cut_bytes", s.cutBytes},
                        {"shrunk", s.shrink}});
        j = std::move(r);
    }
    j.update(workloadMetrics(w));
    j["params"] = w.params;
    j["cycles"] = cycles;
    j["simulated_off_chip_bytes"] = simulated;
    j["cut_bytes"] = cutBytes;
    j["sections"] = list;
    const double peak = j.value("peak_offchip_bytes_per_cycle", 0.0);
    j["off_chip_bw_utilization"] = cycles > 0 && peak > 0 ? simulated / double(cycles) / peak : 0.0;
    j["wall_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    j["warnings"].push_back(fmt::format(
        "pnr.on_overflow=sections: the graph does not fit '{}' and ran in {} "
        "sections one after another{} (result.json: sections)",
        cfg.name, sections.size(),
        shrunk ? fmt::format(", {} of them, a part too large alone, shrunk", shrunk) : std::string()));
    if (art) {
        art->config = cfg;
        art->graph = w.graph.toJson();
        art->dot = w.graph.toDot();
        art->tensors = std::move(memory);
    }
    return j;
}

nlohmann::json runWorkload(const RunRequest& req, const hw::HwConfig& cfg, Workload& w, RunArtifacts* art,
                           std::chrono::steady_clock::time_point t0, std::function<step::Graph()> golden) {
    if (req.backend == "cycle" && cfg.pnr.on_overflow == hw::OnOverflow::Sections && req.placement.empty() &&
        !fitsChip(w, cfg))
        return runSections(req, cfg, w, art, t0);
    nlohmann::json j = runWorkloadOnce(req, cfg, w, art, t0, std::move(golden));
    checkMetricsAgainstRun(j);
    return j;
}

nlohmann::json placeAndRouteTestbench(const RunRequest& req, std::string* svg,
                                      hw::pnr::FloorplanColors colors) {
    const auto cfg = hardwareOf(req);
    const auto& tbench = findTestbench(req.testbench);
    Knobs knobs(tbench.name(), tbench.knobs(), req.knobs);
    auto w = tbench.build(knobs, false);
    w.graph.finalize();
    const auto t0 = std::chrono::steady_clock::now();
    // As a cycle run places it, so that a sweep's shared placement is the one `run` would use.
    Evaluation e;
    if (placementsToEvaluate(cfg) > 1)
        e = evaluatePlacements(req, cfg, w, {}, nullptr);
    else
        e.ranked.push_back(hw::pnr::placeAndRoute(w.graph, cfg, loweringOptions(w)));
    const hw::pnr::PnrResult& r = e.ranked[e.kept];
    nlohmann::json j = r.report;
    j["testbench"] = tbench.name();
    j["params"] = w.params;
    j["wall_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (svg) *svg = hw::pnr::floorplanSvg(w.graph, cfg, r, colors);
    return j;
}

nlohmann::json compareBackends(const RunRequest& req) {
    RunRequest rr = req, cr = req;
    rr.backend = "roofline";
    rr.placement.clear();
    cr.backend = "cycle";
    const nlohmann::json roof = runTestbench(rr);
    RunArtifacts art;
    const nlohmann::json cyc = runTestbench(cr, &art);
    const auto cfg = art.config;
    // Stats rows: path,value,unit, the path ending in the stat's name.
    struct Row {
        std::string path, name;
        double value;
    };
    std::vector<Row> rows;
    std::istringstream csv(art.statsCsv);
    std::string line;
    std::getline(csv, line); // header
    while (std::getline(csv, line)) {
        const auto b = line.find(','), c = line.find(',', b + 1), a = line.rfind('.', b);
        if (b == std::string::npos || c == std::string::npos || a == std::string::npos) continue;
        rows.push_back(
            {line.substr(0, a), line.substr(a + 1, b - a - 1), std::stod(line.substr(b + 1, c - b - 1))});
    }
    // Stall cycles by cause and by the kind of unit the operator runs on (chip.<kind>_r..c.. or chip.agcuN).
    nlohmann::json stalls = nlohmann::json::object();
    for (const auto& r : rows) {
        if (r.name.rfind("stall_", 0) != 0) continue;
        const auto dot = r.path.find('.');
        const std::string unit = r.path.substr(dot + 1, r.path.find('.', dot + 1) - dot - 1);
        const std::string kind = unit.rfind("pcu", 0) == 0   ? "pcu"
                                 : unit.rfind("pmu", 0) == 0 ? "pmu"
                                                             : "agcu";
        const std::string cause = r.name.substr(6, r.name.size() - 6 - 7); // stall_<cause>_cycles
        auto& slot = stalls[cause][kind];
        slot = (slot.is_null() ? 0.0 : slot.get<double>()) + r.value;
    }
    auto top = [&](const std::string& name, std::size_t n) {
        std::vector<const Row*> v;
        for (const auto& r : rows)
            if (r.name == name) v.push_back(&r);
        std::stable_sort(v.begin(), v.end(), [](const Row* a, const Row* b) { return a->value > b->value; });
        nlohmann::json out = nlohmann::json::array();
        for (std::size_t i = 0; i < std::min(n, v.size()); ++i)
            out.push_back({{"path", v[i]->path}, {"value", v[i]->value}});
        return out;
    };
    const double rc = roof["cycles"].get<double>(), cc = cyc["cycles"].get<double>();
    const double offchip = cyc["off_chip_bytes"].get<double>();
    double memPeak = 0;
    for (const auto& [tier, m] : cyc["memory"].items())
        memPeak = std::max(memPeak, m["peak_bytes_per_cycle"].get<double>());
    const double pcus = cyc["units_used"]["pcu"].get<double>();
    const double flops = cyc["graph_flops"].get<double>();
    const double peak = static_cast<double>(cfg.pcu.peakFlopsPerCycle());
    nlohmann::json bounds = {{"memory_cycles", memPeak > 0 ? offchip / memPeak : 0.0},
                             {"memory_peak_bytes_per_cycle", memPeak},
                             {"compute_cycles_assigned", pcus > 0 ? flops / (pcus * peak) : 0.0},
                             {"compute_cycles_chip", flops / (cyc["peak_flops_per_cycle"].get<double>())},
                             {"pcus_assigned", pcus},
                             {"pcu_peak_flops_per_cycle", peak}};
    // Per module path, its stats by name.
    std::map<std::string, std::map<std::string, double>> byPath;
    for (const auto& r : rows)
        byPath[r.path][r.name] = r.value;
    // The operators that finish last decide the run: each one's busy and stalled shares of its finish cycle.
    std::vector<std::pair<std::string, const std::map<std::string, double>*>> ops;
    for (const auto& [path, s] : byPath)
        if (s.count("finish_cycle")) ops.emplace_back(path, &s);
    std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) {
        return a.second->at("finish_cycle") > b.second->at("finish_cycle");
    });
    nlohmann::json operators = nlohmann::json::array();
    for (std::size_t i = 0; i < std::min<std::size_t>(8, ops.size()); ++i) {
        const auto& s = *ops[i].second;
        const double finish = std::max(1.0, s.at("finish_cycle"));
        operators.push_back({{"path", ops[i].first},
                             {"finish_cycle", s.at("finish_cycle")},
                             {"busy_share", s.at("busy_cycles") / finish},
                             {"stall_input_share", s.at("stall_input_cycles") / finish},
                             {"stall_output_share", s.at("stall_output_cycles") / finish},
                             {"stall_memory_share", s.at("stall_memory_cycles") / finish}});
    }
    // The streams that ask most of the fabric: the bandwidth each needs to keep the roofline's pace against
    // what it achieved and what its lanes of the fabric carry.
    std::vector<std::pair<std::string, double>> streams;
    for (const auto& [path, s] : byPath) {
        auto it = s.find("data_bytes");
        if (it != s.end() && it->second > 0 && path.find(".streams.") != std::string::npos)
            streams.emplace_back(path, it->second);
    }
    std::stable_sort(streams.begin(), streams.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    nlohmann::json limiting = nlohmann::json::array();
    for (std::size_t i = 0; i < std::min<std::size_t>(8, streams.size()); ++i) {
        const double bytes = streams[i].second;
        limiting.push_back(
            {{"path", streams[i].first},
             {"data_bytes", bytes},
             {"needed_bytes_per_cycle", rc > 0 ? bytes / rc : 0.0},
             {"achieved_bytes_per_cycle", cc > 0 ? bytes / cc : 0.0},
             {"lanes", byPath[streams[i].first]["lanes"]},
             {"lanes_bytes_per_cycle", byPath[streams[i].first]["lanes"] * cfg.rdn.flit_bytes}});
    }
    // Both backends' warnings, each once. The roofline's step_compat warning names every key the cycle
    // backend's would (its quirks are a superset), so the cycle's is left out.
    const std::string cycleCompat = hw::stepCompatWarning(req.sets, cfg, {false, true});
    nlohmann::json warnings = nlohmann::json::array();
    for (const auto* from : {&cyc, &roof})
        for (const auto& w : from->value("warnings", nlohmann::json::array()))
            if (w != nlohmann::json(cycleCompat) &&
                std::find(warnings.begin(), warnings.end(), w) == warnings.end())
                warnings.push_back(w);
    nlohmann::json out = {{"testbench", cyc["testbench"]},
                          {"warnings", warnings},
                          {"hw", cyc["hw"]},
                          {"params", cyc["params"]},
                          {"roofline", roof},
                          {"cycle", cyc},
                          {"cycle_over_roofline", rc > 0 ? cc / rc : 0.0},
                          {"bounds", bounds},
                          {"stall_cycles", stalls},
                          {"last_operators", operators},
                          {"busiest_streams", limiting}};
    // Sections with nothing in them (no mesh on the ideal network, no DRAM channels behind the published
    // node) are left out.
    if (auto s = top("max_link_utilization", 5); !s.empty()) out["busiest_switches"] = s;
    if (auto m = top("data_bus_utilization", 5); !m.empty()) out["busiest_memory_channels"] = m;
    return out;
}

} // namespace steprdu::tb
