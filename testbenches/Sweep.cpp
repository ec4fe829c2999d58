#include "testbenches/Sweep.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hw/config/ConfigSchema.h"
#include "hw/config/HwConfigLoader.h"
#include "testbenches/RunDirectory.h"
#include "util/Error.h"

extern char** environ;

namespace steprdu::tb {

namespace fs = std::filesystem;

namespace {

// FNV-1a, 64 bits: stable across platforms and runs (std::hash is neither).
std::string hashHex(const std::string& s) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return fmt::format("{:016x}", h);
}

std::string readText(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// Writes `text` to `path` through a temporary file and a rename, so a reader never sees half a file.
void writeAtomically(const fs::path& path, const std::string& text) {
    const fs::path tmp = path.parent_path() / fmt::format(".{}.tmp-{}", path.filename().string(), ::getpid());
    {
        std::ofstream f(tmp, std::ios::binary);
        f << text;
        if (!f) throw StepError(ExitCode::Internal, "cannot write " + tmp.string());
    }
    fs::rename(tmp, path);
}

std::string shellQuote(const std::string& s) {
    std::string out = "'";
    for (char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string csvCell(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string jsonCell(const nlohmann::json& v) {
    if (v.is_null()) return "";
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_float()) return fmt::format("{:.9g}", v.get<double>());
    return v.dump();
}

} // namespace

nlohmann::json SweepPoint::toJson() const {
    nlohmann::json axesJson = nlohmann::json::array();
    for (const auto& [k, v] : axes)
        axesJson.push_back({k, v});
    return {{"id", id},
            {"series", series},
            {"axes", axesJson},
            {"testbench", request.testbench},
            {"knobs", request.knobs},
            {"backend", request.backend},
            {"hw", request.hw},
            {"sets", request.sets},
            {"structure", structure},
            {"structure_sets", structureSets}};
}

SweepPoint SweepPoint::fromJson(const nlohmann::json& j) {
    SweepPoint p;
    p.id = j.at("id");
    p.series = j.at("series");
    for (const auto& a : j.at("axes"))
        p.axes.emplace_back(a.at(0).get<std::string>(), a.at(1).get<std::string>());
    p.request.testbench = j.at("testbench");
    p.request.knobs = j.at("knobs").get<std::vector<std::string>>();
    p.request.backend = j.at("backend");
    p.request.hw = j.at("hw");
    p.request.sets = j.at("sets").get<std::vector<std::string>>();
    p.structure = j.value("structure", "");
    p.structureSets = j.value("structure_sets", std::vector<std::string>{});
    return p;
}

std::vector<SweepPoint> expandSweep(const std::string& spec, const std::string& sharedDir,
                                    const std::string& backend, const std::string& hw,
                                    const std::vector<std::string>& sets) {
    ExperimentDef def;
    std::string file = spec;
    if (fs::is_regular_file(spec)) {
        def = parseExperiment(readText(spec), spec, fs::path(spec).stem().string());
    } else if (spec.find('/') == std::string::npos && spec.find('.') == std::string::npos) {
        def = loadExperiment(spec); // an embedded figure spec by name
        file = "configs/experiments/" + spec + ".yaml";
    } else {
        throw BadInput(fmt::format("{}: cannot open the sweep spec", spec));
    }
    if (!backend.empty()) {
        checkBackend("--backend", backend);
        def.backend = backend;
    }
    if (!hw.empty()) def.hw = hw;
    const auto& tbench = findTestbench(def.testbench);
    std::vector<SweepPoint> points;
    std::set<std::string> seen, built;
    std::map<std::string, hw::HwConfig> presets;
    for (std::size_t i = 0; i < def.series.size(); ++i) {
        const auto& s = def.series[i];
        const std::string where = fmt::format("{}: runs[{}]", file, i);
        for (const auto& combo : expandSeries(s, def.expand, where)) {
            SweepPoint p;
            p.series = s.label;
            RunRequest& r = p.request;
            r.testbench = def.testbench;
            r.backend = def.backend;
            r.hw = def.hw;
            r.sets = sets;
            p.structureSets = sets;
            for (const auto& [k, v] : s.knobs)
                r.knobs.push_back(k + "=" + withSharedDir(v, sharedDir));
            for (const auto& [axis, raw] : combo) {
                const std::string v = withSharedDir(raw, sharedDir);
                p.axes.emplace_back(axis, v);
                if (axis == "backend") {
                    checkBackend(where + ".sweep.backend", v);
                    r.backend = v;
                } else if (axis == "hw") {
                    r.hw = v;
                } else if (axis.rfind("hw.", 0) == 0) {
                    r.sets.push_back(axis.substr(3) + "=" + v);
                    if (hw::isStructuralKey(axis.substr(3))) p.structureSets.push_back(r.sets.back());
                } else {
                    r.knobs.push_back(axis + "=" + v);
                }
            }
            // The resolved hardware: its preset or file with every override, as the run will see it.
            hw::HwConfig cfg;
            try {
                if (!presets.count(r.hw)) presets.emplace(r.hw, hw::loadHwConfig(r.hw));
                cfg = presets.at(r.hw);
                for (const auto& set : r.sets)
                    hw::applyOverride(cfg, set);
            } catch (const BadInput& e) {
                throw BadInput(fmt::format("{}.sweep: {}", where, e.what()));
            }
            auto knobs = r.knobs;
            std::sort(knobs.begin(), knobs.end());
            const std::string knobKey = fmt::format("{}", fmt::join(knobs, "\n"));
            if (!built.count(knobKey)) { // every knob name and value, by building the graph once
                try {
                    Knobs k(tbench.name(), tbench.knobs(), r.knobs);
                    (void)tbench.build(k, r.backend == "interp");
                } catch (const BadInput& e) {
                    throw BadInput(fmt::format("{}: {}", where, e.what()));
                }
                built.insert(knobKey);
            }
            p.id = hashHex(fmt::format("{}\n{}\n{}\n{}", r.testbench, knobKey, r.backend, hw::toYaml(cfg)));
            if (r.backend == "cycle") {
                hw::HwConfig structural = presets.at(r.hw);
                for (const auto& set : p.structureSets)
                    hw::applyOverride(structural, set);
                p.structure =
                    hashHex(fmt::format("{}\n{}\n{}", r.testbench, knobKey, hw::toYaml(structural)));
            }
            if (seen.insert(p.id).second) points.push_back(p);
        }
    }
    if (points.empty()) throw BadInput(file + ": " + expectedFound("at least one run", "none"));
    return points;
}

std::string manifestPath(const std::string& dir) {
    return (fs::path(dir) / "manifest.jsonl").string();
}

std::string pointDirectory(const std::string& dir, const std::string& id) {
    return (fs::path(dir) / "points" / id).string();
}

bool pointDone(const std::string& dir, const std::string& id) {
    return fs::is_regular_file(fs::path(pointDirectory(dir, id)) / "result.json");
}

void writeManifest(const std::string& dir, const std::vector<SweepPoint>& points) {
    fs::create_directories(fs::path(dir) / "points");
    std::string text;
    for (const auto& p : points)
        text += p.toJson().dump() + "\n";
    writeAtomically(manifestPath(dir), text);
}

std::vector<SweepPoint> readManifest(const std::string& dir) {
    std::ifstream f(manifestPath(dir));
    if (!f) throw BadInput(fmt::format("{}: no sweep here (manifest.jsonl missing)", dir));
    std::vector<SweepPoint> points;
    std::string line;
    for (int n = 1; std::getline(f, line); ++n) {
        if (line.empty()) continue;
        try {
            points.push_back(SweepPoint::fromJson(nlohmann::json::parse(line)));
        } catch (const nlohmann::json::exception& e) {
            throw BadInput(fmt::format("{}:{}: {}", manifestPath(dir), n, e.what()));
        }
    }
    return points;
}

int runSweepPoint(const std::string& dir, const SweepPoint& p, const std::string& commandLine) {
    const fs::path final = pointDirectory(dir, p.id);
    if (pointDone(dir, p.id)) return 0;
    const fs::path partial = final.parent_path() / fmt::format(".{}.partial-{}", p.id, ::getpid());
    const fs::path failed = fs::path(dir) / "failed" / p.id;
    fs::remove_all(partial);
    const auto t0 = std::chrono::steady_clock::now();
    const auto wall = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    try {
        RunArtifacts art;
        RunRequest req = p.request;
        req.placement = ensurePlacement(dir, p);
        nlohmann::json j = runTestbench(req, &art);
        j["point"] = p.toJson();
        writeRunDirectory(partial.string(), j, art,
                          runMeta(commandLine, wall(), j.value("sim_cycles_per_second", 0.0), 0));
    } catch (const StepError& e) {
        fs::remove_all(partial);
        fs::remove_all(failed);
        writeRunError(failed.string(), static_cast<int>(e.code()), e.what(),
                      runMeta(commandLine, wall(), 0, static_cast<int>(e.code())));
        return static_cast<int>(e.code());
    }
    std::error_code ec;
    fs::rename(partial, final, ec);
    if (ec) fs::remove_all(partial); // another worker finished the same point first
    fs::remove_all(failed);
    return 0;
}

std::string placementPath(const std::string& dir, const std::string& structure) {
    return structure.empty() ? "" : (fs::path(dir) / "placements" / (structure + ".json")).string();
}

std::string ensurePlacement(const std::string& dir, const SweepPoint& p) {
    const std::string path = placementPath(dir, p.structure);
    if (path.empty() || fs::is_regular_file(path)) return path;
    RunRequest r = p.request;
    r.sets = p.structureSets;
    nlohmann::json j = placeAndRouteTestbench(r);
    j["structure"] = p.structure;
    j["structure_sets"] = p.structureSets;
    fs::create_directories(fs::path(path).parent_path());
    writeAtomically(path, j.dump(1) + "\n");
    return path;
}

int runSweep(const std::string& dir, int jobs, const std::string& self,
             const std::function<void(const SweepProgress&)>& progress) {
    const auto points = readManifest(dir);
    std::vector<const SweepPoint*> pending;
    SweepProgress pr;
    pr.total = static_cast<int>(points.size());
    for (const auto& p : points) {
        if (pointDone(dir, p.id))
            ++pr.done;
        else
            pending.push_back(&p);
    }
    // One place and route per structure, before the points that share it run in parallel. A structure
    // that does not place (too large, say) fails its points one by one, each with the error.
    for (const SweepPoint* p : pending) {
        try {
            ensurePlacement(dir, *p);
        } catch (const StepError&) {
        }
    }
    const auto t0 = std::chrono::steady_clock::now();
    if (progress) progress(pr);
    std::map<pid_t, const SweepPoint*> running;
    std::size_t next = 0;
    while (next < pending.size() || !running.empty()) {
        while (next < pending.size() && static_cast<int>(running.size()) < std::max(jobs, 1)) {
            const auto& p = *pending[next++];
            std::vector<std::string> words{self, "sweep", "--point", p.id, "--out", dir, "--quiet"};
            std::vector<char*> argv;
            for (auto& w : words)
                argv.push_back(w.data());
            argv.push_back(nullptr);
            pid_t pid = 0;
            if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv.data(), environ) != 0)
                throw StepError(ExitCode::Internal, "cannot start " + self);
            running.emplace(pid, &p);
        }
        int status = 0;
        const pid_t pid = ::waitpid(-1, &status, 0);
        if (pid < 0) throw StepError(ExitCode::Internal, "waitpid failed while running the sweep");
        if (!running.erase(pid)) continue;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
            ++pr.done;
        else
            ++pr.failed;
        pr.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (progress) progress(pr);
    }
    return pr.failed;
}

std::string collectSweep(const std::string& dir, int* rows) {
    const auto points = readManifest(dir);
    std::vector<std::string> axes;
    for (const auto& p : points)
        for (const auto& [k, v] : p.axes)
            if (std::find(axes.begin(), axes.end(), k) == axes.end()) axes.push_back(k);
    static const std::vector<std::string> metrics{
        "cycles",       "off_chip_bytes",      "on_chip_bytes",           "flops",
        "wall_seconds", "compute_utilization", "off_chip_bw_utilization", "pcu_utilization"};
    std::string csv = "series";
    for (const auto& a : axes)
        csv += "," + csvCell(a);
    for (const auto& m : metrics)
        csv += "," + m;
    csv += ",point,placement,status,error\n";
    int n = 0;
    for (const auto& p : points) {
        // A point that has not finished is `failed` (with its error) or `pending`, its metrics empty.
        const bool done = pointDone(dir, p.id);
        nlohmann::json j = nlohmann::json::object();
        std::string status = "ok", error;
        if (done) {
            j = nlohmann::json::parse(
                readText((fs::path(pointDirectory(dir, p.id)) / "result.json").string()));
        } else {
            const fs::path failed = fs::path(dir) / "failed" / p.id / "error.json";
            status = fs::exists(failed) ? "failed" : "pending";
            if (fs::exists(failed)) {
                const auto e = nlohmann::json::parse(readText(failed.string()), nullptr, false);
                error = e.is_object() ? e.value("message", "") : "unreadable error.json";
            }
        }
        std::string line = csvCell(p.series);
        for (const auto& a : axes) {
            std::string v;
            for (const auto& [k, val] : p.axes)
                if (k == a) v = val;
            line += "," + csvCell(v);
        }
        for (const auto& m : metrics)
            line += "," + csvCell(j.contains(m) ? jsonCell(j[m]) : "");
        const std::string placement =
            p.structure.empty() ? "" : (fs::path("placements") / (p.structure + ".json")).string();
        csv += line + "," + p.id + "," + csvCell(placement) + "," + status + "," + csvCell(error) + "\n";
        n += done;
    }
    const fs::path out = fs::path(dir) / "results.csv";
    writeAtomically(out, csv);
    if (rows) *rows = n;
    return out.string();
}

std::string emitParallel(const std::string& dir, const std::string& self) {
    const std::string abs = fs::absolute(dir).string();
    std::string text;
    for (const auto& p : readManifest(dir))
        if (!pointDone(dir, p.id))
            text += fmt::format("{} sweep --point {} --out {} --quiet\n", shellQuote(self), p.id,
                                shellQuote(abs));
    const fs::path out = fs::path(dir) / "jobs.parallel";
    writeAtomically(out, text);
    return out.string();
}

std::string emitSlurm(const std::string& dir, const std::string& self, int pointsPerTask) {
    const std::string abs = fs::absolute(dir).string();
    std::vector<std::string> ids;
    for (const auto& p : readManifest(dir))
        if (!pointDone(dir, p.id)) ids.push_back(p.id);
    const int k = std::max(pointsPerTask, 1);
    const int tasks = std::max<int>(1, static_cast<int>((ids.size() + k - 1) / k));
    std::string text = fmt::format(
        "#!/bin/bash\n"
        "# steprdu sweep: {} points, {} per array task. Submit with `sbatch {}`; then `steprdu collect {}`.\n"
        "#SBATCH --job-name=steprdu-sweep\n"
        "#SBATCH --array=0-{}\n"
        "#SBATCH --output={}/slurm-%A_%a.out\n"
        "POINTS=(\n",
        ids.size(), k, shellQuote(abs + "/sweep.slurm"), shellQuote(abs), tasks - 1, abs);
    for (const auto& id : ids)
        text += "  " + id + "\n";
    text += fmt::format(")\n"
                        "status=0\n"
                        "first=$((SLURM_ARRAY_TASK_ID * {}))\n"
                        "for ((i = first; i < first + {} && i < ${{#POINTS[@]}}; i++)); do\n"
                        "  {} sweep --point \"${{POINTS[i]}}\" --out {} --quiet || status=1\n"
                        "done\n"
                        "exit $status\n",
                        k, k, shellQuote(self), shellQuote(abs));
    const fs::path out = fs::path(dir) / "sweep.slurm";
    writeAtomically(out, text);
    return out.string();
}

} // namespace steprdu::tb
