#include "testbenches/Claims.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "testbenches/Calibration.h"
#include "util/Error.h"

namespace steprdu::tb {

double paretoImprovementDistance(const std::vector<ParetoPoint>& baseline, ParetoPoint p) {
    double best = INFINITY;
    for (auto& q : baseline) {
        bool dominated = std::any_of(baseline.begin(), baseline.end(), [&](const ParetoPoint& o) {
            return o.cycles <= q.cycles && o.memory <= q.memory &&
                   (o.cycles < q.cycles || o.memory < q.memory);
        });
        if (dominated) continue;
        best = std::min(best, std::max(q.cycles / p.cycles, q.memory / p.memory));
    }
    return best;
}

std::vector<std::string> claimExperiments() {
    return {"fig9", "fig10", "fig12_13", "fig15", "fig21", "fig17"};
}

namespace {

double num(const nlohmann::json& row, const char* key) {
    return row.at(key).get<double>();
}

const nlohmann::json& find(const ExperimentResult& r, const std::string& series, const std::string& knob,
                           const std::string& value) {
    for (auto& row : r.rows) {
        auto& p = row.at("params");
        std::string v = p.at(knob).is_string() ? p.at(knob).get<std::string>() : p.at(knob).dump();
        if (row.at("series") == series && v == value) return row;
    }
    throw BadInput("claims: experiment " + r.def.name + " has no run with " + knob + "=" + value + " in " +
                   series);
}

// Dynamic tiling: static points plot the full on-chip requirement, the dynamic one frees unused experts'
// buffers (experiments.md §4.1), as the paper's figures do.
double pid(const ExperimentResult& r, const std::string& series) {
    std::vector<ParetoPoint> statics;
    ParetoPoint dyn{0, 0};
    for (auto& row : r.rows) {
        if (row.at("series") != series) continue;
        if (row["params"]["tile_n"] == "dynamic")
            dyn = {num(row, "cycles"), num(row, "on_chip_bytes_active")};
        else
            statics.push_back({num(row, "cycles"), num(row, "on_chip_bytes")});
    }
    return paretoImprovementDistance(statics, dyn);
}

// Geometric mean over every trace of a batch-size sweep of (strategy cycles / dynamic cycles).
double geomeanSlowdown(const ExperimentResult& r, const std::string& strategy) {
    std::map<std::string, double> dynamic;
    for (auto& row : r.rows)
        if (row["params"]["strategy"] == "dynamic")
            dynamic[row["params"]["trace"].get<std::string>()] = num(row, "cycles");
    double logSum = 0;
    int n = 0;
    for (auto& row : r.rows) {
        if (row["params"]["strategy"] != strategy) continue;
        logSum += std::log(num(row, "cycles") / dynamic.at(row["params"]["trace"].get<std::string>()));
        ++n;
    }
    return n ? std::exp(logSum / n) : 0;
}

} // namespace

std::vector<Claim> paperClaims(const std::map<std::string, ExperimentResult>& results) {
    std::vector<Claim> c;
    if (auto it = results.find("fig9"); it != results.end()) {
        c.push_back({"Fig 9", "Mixtral b64: PID of dynamic tiling", 1.33, pid(it->second, "mixtral")});
        c.push_back({"Fig 9", "Qwen b64: PID of dynamic tiling", 2.11, pid(it->second, "qwen")});
    }
    if (auto it = results.find("fig10"); it != results.end()) {
        c.push_back({"Fig 10", "Mixtral b1024: PID of dynamic tiling", 1.86, pid(it->second, "mixtral")});
        c.push_back({"Fig 10", "Qwen b1024: PID of dynamic tiling", 1.87, pid(it->second, "qwen")});
    }
    if (auto it = results.find("fig12_13"); it != results.end()) {
        const auto& r = it->second;
        for (auto [series, ratio] : {std::pair{"static", 2.64}, std::pair{"dynamic", 2.51}}) {
            const auto& base = find(r, series, "regions", "128");
            const auto& shared = find(r, series, "regions", "32");
            c.push_back({"Fig 12", std::string(series) + " tiling: compute utilization R=32 / R=128", ratio,
                         num(shared, "compute_utilization") / num(base, "compute_utilization")});
            double overhead = num(shared, "cycles") / num(base, "cycles") - 1;
            if (std::string(series) == "static") {
                c.push_back({"Fig 12", "static tiling: cycle overhead of R=32 over R=128 (\"under 1%\")",
                             0.01, overhead, 0.10, true});
            } else {
                // "About 5%" rounds the published runs' 754,098 / 713,539 cycles (the Fig 12(b) result CSV,
                // whose utilizations give the 2.51x above): 5.68%.
                c.push_back(
                    {"Fig 12",
                     "dynamic tiling: cycle overhead of R=32 over R=128 (\"about 5%\", 5.68% in its data)",
                     kPublishedFig12DynamicR32 / kPublishedFig12DynamicR128 - 1, overhead});
            }
        }
        const auto& base = find(r, "static", "regions", "128");
        const auto& shared = find(r, "static", "regions", "32");
        c.push_back({"Fig 13", "allocated compute freed at R=32", 0.62,
                     1 - num(shared, "allocated_flops_per_cycle") / num(base, "allocated_flops_per_cycle")});
        c.push_back({"Fig 13", "on-chip memory freed at R=32", 0.46,
                     1 - num(shared, "on_chip_bytes_active") / num(base, "on_chip_bytes_active")});
    }
    if (auto it = results.find("fig15"); it != results.end()) {
        const auto& r = it->second;
        c.push_back({"Fig 15", "batch 16: dynamic speedup over static coarse", 2.72,
                     num(find(r, "coarse", "batch", "16"), "cycles") /
                         num(find(r, "dynamic", "batch", "16"), "cycles")});
    }
    if (auto it = results.find("fig21"); it != results.end()) {
        c.push_back({"Fig 21", "geomean speedup of dynamic over static interleaved (b16, b64, b80)", 1.36,
                     geomeanSlowdown(it->second, "interleaved")});
        c.push_back({"Fig 21", "geomean speedup of dynamic over static coarse (b16, b64, b80)", 1.85,
                     geomeanSlowdown(it->second, "coarse")});
    }
    if (auto it = results.find("fig17"); it != results.end()) {
        const auto& r = it->second;
        auto row = [&](const char* model, const char* variant) { return find(r, model, "variant", variant); };
        // On-chip memory as Fig 9 plots it: the static variants' full requirement, the optimized one's
        // active.
        auto memory = [&](const nlohmann::json& x) {
            return num(x, x["params"]["tile_n"] == "dynamic" ? "on_chip_bytes_active" : "on_chip_bytes");
        };
        auto speedup = [&](const char* model, const char* base) {
            return num(row(model, base), "cycles") / num(row(model, "optimized"), "cycles");
        };
        auto saved = [&](const char* model, const char* base) {
            return 1 - memory(row(model, "optimized")) / memory(row(model, base));
        };
        // The paper's speedups imply an attention and QKV part of about 5.5 M cycles in its Mixtral layer
        // (1.27x and 1.05x over a MoE of 4.6 M and 2.8 M cycles); this model's is about 1.4 M, so the MoE's
        // tiling decides more of the layer here.
        auto value = [&](const char* what, double paper, double measured, std::string gap = "") {
            Claim k{"Fig 17", what, paper, measured};
            k.gap = std::move(gap);
            c.push_back(k);
        };
        auto fraction = [&](const char* what, double paper, double measured) {
            Claim k{"Fig 17", what, paper, measured};
            k.absolute = true;
            c.push_back(k);
        };
        const std::string mixGap = "the MoE is a larger part of this model's layer than of the paper's";
        value("Mixtral: optimized speedup over memory-matched", 1.27, speedup("mixtral", "memory_matched"),
              mixGap);
        value("Qwen: optimized speedup over memory-matched", 1.15, speedup("qwen", "memory_matched"), mixGap);
        fraction("Qwen: on-chip memory saved over memory-matched", 0.69, saved("qwen", "memory_matched"));
        fraction("Qwen: compute resources saved over memory-matched", 0.54,
                 1 - num(row("qwen", "optimized"), "allocated_flops_per_cycle") /
                         num(row("qwen", "memory_matched"), "allocated_flops_per_cycle"));
        fraction("Mixtral: on-chip memory saved over performance-matched", 0.20,
                 saved("mixtral", "performance_matched"));
        fraction("Qwen: on-chip memory saved over performance-matched", 0.88,
                 saved("qwen", "performance_matched"));
        value("Mixtral: optimized speedup over performance-matched", 1.05,
              speedup("mixtral", "performance_matched"));
        value("Qwen: optimized speedup over performance-matched", 1.14,
              speedup("qwen", "performance_matched"),
              "time-multiplexing and dynamic attention over (token, KV head) requests gain nothing here");
    }
    return c;
}

} // namespace steprdu::tb
