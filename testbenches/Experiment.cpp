#include "testbenches/Experiment.h"

#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "testbenches/EmbeddedExperiments.h"
#include "testbenches/Runner.h"
#include "util/Error.h"
#include "util/Strings.h"

namespace steprdu::tb {

std::vector<std::string> experimentNames() {
    std::vector<std::string> names;
    for (auto& e : embeddedExperiments())
        names.push_back(e.name);
    return names;
}

namespace {

std::string scalar(const YAML::Node& n, const std::string& where) {
    if (!n.IsScalar()) throw BadInput(where + ": " + expectedFound("a scalar value", "a list or map"));
    return n.as<std::string>();
}

std::string withShared(std::string value, const std::string& sharedDir) {
    auto at = value.find("{shared}");
    if (at != std::string::npos) value.replace(at, 8, sharedDir);
    return value;
}

std::vector<std::pair<std::string, std::string>> knobMap(const YAML::Node& n, const std::string& where) {
    std::vector<std::pair<std::string, std::string>> out;
    if (!n) return out;
    if (!n.IsMap()) throw BadInput(where + ": " + expectedFound("a map of knob: value", "something else"));
    for (auto it = n.begin(); it != n.end(); ++it)
        out.emplace_back(it->first.as<std::string>(),
                         scalar(it->second, where + "." + it->first.as<std::string>()));
    return out;
}

} // namespace

ExperimentDef parseExperiment(const std::string& yaml, const std::string& file, const std::string& name) {
    ExperimentDef d;
    d.name = name;
    YAML::Node root;
    try {
        root = YAML::Load(yaml);
    } catch (const YAML::Exception& ex) {
        throw BadInput(fmt::format("{}:{}:{}: YAML syntax error: {}", file, ex.mark.line + 1,
                                   ex.mark.column + 1, ex.msg));
    }
    if (!root.IsMap())
        throw BadInput(file + ": " + expectedFound("a map of experiment keys", "something else"));
    static const std::vector<std::string> keys{"description", "testbench", "backend", "hw",
                                               "columns",     "runs",      "expand"};
    for (auto it = root.begin(); it != root.end(); ++it) {
        auto k = it->first.as<std::string>();
        if (std::find(keys.begin(), keys.end(), k) == keys.end()) {
            auto near = nearestWord(k, keys);
            throw BadInput(
                fmt::format("{}: {}: unknown key{}", file, k, near ? "; did you mean '" + *near + "'?" : ""));
        }
    }
    d.description = root["description"].as<std::string>("");
    d.testbench = scalar(root["testbench"], file + ": testbench");
    if (root["backend"]) d.backend = scalar(root["backend"], file + ": backend");
    if (root["hw"]) d.hw = scalar(root["hw"], file + ": hw");
    if (root["expand"]) d.expand = scalar(root["expand"], file + ": expand");
    if (d.expand != "grid" && d.expand != "zip")
        throw BadInput(
            fmt::format("{}: expand: {}", file, expectedFound("grid or zip", "'" + d.expand + "'")));
    for (auto c : root["columns"])
        d.columns.push_back(c.as<std::string>());
    int i = 0;
    for (auto r : root["runs"]) {
        std::string where = fmt::format("{}: runs[{}]", file, i++);
        ExperimentSeries s;
        s.label = r["label"].as<std::string>("");
        s.knobs = knobMap(r["knobs"], where + ".knobs");
        // Named nodes only: begin() and end() of two temporaries point into two nodes, and it->second
        // lives in a proxy that dies with the expression.
        if (const YAML::Node sweep = r["sweep"]) {
            if (!sweep.IsMap())
                throw BadInput(where +
                               ".sweep: " + expectedFound("a map of axis: [values]", "something else"));
            for (const auto& axis : sweep) {
                const std::string key = axis.first.as<std::string>();
                if (!axis.second.IsSequence() || axis.second.size() == 0)
                    throw BadInput(
                        fmt::format("{}.sweep.{}: {}", where, key,
                                    expectedFound("a non-empty list of values", "something else")));
                std::vector<std::string> values;
                for (const auto& v : axis.second)
                    values.push_back(scalar(v, where + ".sweep." + key));
                s.sweep.emplace_back(key, values);
            }
        }
        d.series.push_back(s);
    }
    return d;
}

ExperimentDef loadExperiment(const std::string& name) {
    for (auto& e : embeddedExperiments())
        if (name == e.name) return parseExperiment(e.text, "configs/experiments/" + name + ".yaml", name);
    auto names = experimentNames();
    auto near = nearestWord(name, names);
    throw BadInput(fmt::format("unknown experiment '{}'{}; experiments: {}", name,
                               near ? "; did you mean '" + *near + "'?" : "", fmt::join(names, ", ")));
}

bool readsSharedData(const ExperimentDef& def) {
    auto has = [](const std::string& v) { return v.find("{shared}") != std::string::npos; };
    for (auto& series : def.series) {
        for (auto& [k, v] : series.knobs)
            if (has(v)) return true;
        for (auto& [k, values] : series.sweep)
            for (auto& v : values)
                if (has(v)) return true;
    }
    return false;
}

std::vector<std::vector<std::pair<std::string, std::string>>>
expandSeries(const ExperimentSeries& s, const std::string& expand, const std::string& where) {
    std::vector<std::vector<std::pair<std::string, std::string>>> combos{{}};
    if (expand == "zip" && !s.sweep.empty()) {
        const std::size_t n = s.sweep.front().second.size();
        for (const auto& [key, values] : s.sweep)
            if (values.size() != n)
                throw BadInput(fmt::format(
                    "{}.sweep.{}: zip needs axes of equal length; {}", where, key,
                    expectedFound(std::to_string(n) + " values (as " + s.sweep.front().first + ")",
                                  std::to_string(values.size()))));
        combos.assign(n, {});
        for (std::size_t i = 0; i < n; ++i)
            for (const auto& [key, values] : s.sweep)
                combos[i].emplace_back(key, values[i]);
        return combos;
    }
    for (const auto& [key, values] : s.sweep) {
        std::vector<std::vector<std::pair<std::string, std::string>>> next;
        for (const auto& c : combos)
            for (const auto& v : values) {
                auto n = c;
                n.emplace_back(key, v);
                next.push_back(n);
            }
        combos = next;
    }
    return combos;
}

std::string withSharedDir(const std::string& value, const std::string& sharedDir) {
    return withShared(value, sharedDir);
}

ExperimentResult runExperiment(const ExperimentDef& def, const std::string& sharedDir,
                               const std::function<void(int, int, const std::string&)>& progress) {
    // Expand every series' sweep into concrete knob lists first, so progress can say "k of n".
    struct Point {
        std::string label;
        std::vector<std::string> knobs;
    };
    std::vector<Point> points;
    for (std::size_t i = 0; i < def.series.size(); ++i) {
        const auto& s = def.series[i];
        for (const auto& combo : expandSeries(s, def.expand, fmt::format("runs[{}]", i))) {
            Point p{s.label, {}};
            for (auto& [k, v] : s.knobs)
                p.knobs.push_back(k + "=" + withShared(v, sharedDir));
            for (auto& [k, v] : combo)
                p.knobs.push_back(k + "=" + withShared(v, sharedDir));
            points.push_back(p);
        }
    }
    ExperimentResult out{def, {}};
    for (std::size_t i = 0; i < points.size(); ++i) {
        std::string desc = fmt::format("{} {}", def.testbench, fmt::join(points[i].knobs, " "));
        if (progress) progress(static_cast<int>(i) + 1, static_cast<int>(points.size()), desc);
        RunRequest req;
        req.testbench = def.testbench;
        req.knobs = points[i].knobs;
        req.backend = def.backend;
        req.hw = def.hw;
        auto j = runTestbench(req);
        j.erase("expressions");
        j["series"] = points[i].label;
        out.rows.push_back(j);
    }
    return out;
}

std::string experimentCsv(const ExperimentResult& r) {
    std::ostringstream os;
    os << fmt::format("{}\n", fmt::join(r.def.columns, ","));
    for (auto& row : r.rows) {
        std::vector<std::string> cells;
        for (auto& c : r.def.columns) {
            const nlohmann::json* v = row.contains(c)             ? &row[c]
                                      : row["params"].contains(c) ? &row["params"][c]
                                                                  : nullptr;
            if (!v || v->is_null())
                cells.emplace_back("");
            else if (v->is_string())
                cells.push_back(v->get<std::string>());
            else if (v->is_number_float())
                cells.push_back(fmt::format("{:.6g}", v->get<double>()));
            else
                cells.push_back(v->dump());
        }
        os << fmt::format("{}\n", fmt::join(cells, ","));
    }
    return os.str();
}

} // namespace steprdu::tb
