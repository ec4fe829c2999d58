#include "hw/config/HwConfigLoader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "hw/config/ConfigSchema.h"
#include "hw/config/EmbeddedPresets.h"
#include "hw/config/UnitName.h"
#include "util/Error.h"
#include "util/Strings.h"

namespace steprdu::hw {

namespace fs = std::filesystem;

namespace {

// Where YAML text comes from: an embedded preset or a file.
struct Source {
    std::string display; // how messages name it
    std::string name;    // preset name or file stem: the default for the `name` key
    std::string id;      // identity for detecting `base:` cycles
    std::string text;
    std::optional<fs::path> dir; // a file's directory, against which its relative `base:` resolves
};

const char* findPreset(const std::string& name) {
    for (const auto& p : embeddedPresets())
        if (name == p.name) return p.text;
    return nullptr;
}

std::string presetList() {
    return fmt::format("{}", fmt::join(presetNames(), ", "));
}

bool isSection(const std::string& name) {
    auto s = configSections();
    return std::find(s.begin(), s.end(), name) != s.end();
}

// A group of keys inside a section, such as memory.place.
bool isSubsection(const std::string& path) {
    for (const auto& k : configSchema())
        if (k.path.rfind(path + ".", 0) == 0) return true;
    return false;
}

// Numbers print bare, everything else quoted, so "found 0" and "found 'abc'" read naturally.
std::string quoteScalar(const std::string& text) {
    return parseDouble(text) ? text : "'" + text + "'";
}

std::string describe(const YAML::Node& n) {
    switch (n.Type()) {
    case YAML::NodeType::Scalar:
        return quoteScalar(n.Scalar());
    case YAML::NodeType::Sequence:
        return "a sequence";
    case YAML::NodeType::Map:
        return "a mapping";
    default:
        return "null";
    }
}

// Like nearestWord, but at equal distance a candidate with the same letters wins: swapped letters
// ("hmb" for "hbm") are a common typo that plain edit distance scores as two edits.
std::optional<std::string> suggest(const std::string& word, const std::vector<std::string>& candidates) {
    auto best = nearestWord(word, candidates);
    if (!best) return best;
    auto sorted = [](std::string s) {
        std::sort(s.begin(), s.end());
        return s;
    };
    std::size_t d = editDistance(word, *best);
    for (const auto& c : candidates)
        if (editDistance(word, c) == d && sorted(c) == sorted(word)) return c;
    return best;
}

std::vector<std::string> topLevelKeys(bool withBase) {
    std::vector<std::string> out;
    for (const auto& k : configSchema())
        if (k.section().empty()) out.push_back(k.path);
    if (withBase) out.push_back("base");
    for (const auto& s : configSections())
        out.push_back(s);
    return out;
}

std::vector<std::string> sectionKeys(const std::string& section) {
    std::vector<std::string> out;
    for (const auto& k : configSchema())
        if (k.section() == section) out.push_back(k.leaf());
    return out;
}

// "<path>: unknown key; ..." with a suggestion, else the valid keys of the enclosing section.
std::string unknownKey(const std::string& path, bool withBase) {
    std::vector<std::string> candidates = topLevelKeys(withBase);
    for (const auto& k : configSchema())
        if (!k.section().empty()) candidates.push_back(k.path);
    if (auto near = suggest(path, candidates))
        return fmt::format("{}: unknown key; did you mean '{}'?", path, *near);
    auto dot = path.rfind('.');
    std::string section = dot == std::string::npos ? "" : path.substr(0, dot);
    if (isSection(section))
        return fmt::format("{}: unknown key; valid keys of '{}': {}", path, section,
                           fmt::join(sectionKeys(section), ", "));
    return fmt::format("{}: unknown key; valid top-level keys: {}", path,
                       fmt::join(topLevelKeys(withBase), ", "));
}

// "pcu_r3c7" -> "pcu", "agcu5" -> "agcu"; the section whose keys a unit of that kind takes, or "" if the name
// is not a unit name at all (then it is an ordinary unknown key).
std::string unitSection(const std::string& unit, const std::string& where) {
    static const std::regex anyUnit("^([a-z]+)(_r[0-9]+c[0-9]+|[0-9]+)$");
    if (const auto u = parseUnitName(unit)) return kindName(u->kind);
    std::smatch m;
    if (std::regex_match(unit, m, anyUnit))
        throw BadInput(fmt::format(
            "{}: chip.{}: unknown unit kind '{}'; {}", where, unit, m[1].str(),
            expectedFound("pcu_r<row>c<col>, pmu_r<row>c<col> or agcu<index>", "'" + unit + "'")));
    return "";
}

// One parameter of one unit: `key` is a leaf of the unit's section (simd_lanes for a PCU).
void setUnitKey(HwConfig& cfg, const std::string& unit, const std::string& section, const std::string& key,
                const std::string& text, const std::string& where) {
    const std::string path = "chip." + unit + "." + key;
    const ConfigKey* k = findConfigKey(section + "." + key);
    if (!k) {
        auto near = suggest(key, sectionKeys(section));
        throw BadInput(fmt::format("{}: {}: unknown {} parameter{}; valid keys: {}", where, path, section,
                                   near ? "; did you mean '" + *near + "'?" : "",
                                   fmt::join(sectionKeys(section), ", ")));
    }
    std::optional<KeyValue> v = k->parse(text);
    if (!v)
        throw BadInput(
            fmt::format("{}: {}: {}", where, path, expectedFound(k->expected(), quoteScalar(text))));
    cfg.units[unit][k->path] = *v;
}

Source presetSource(const std::string& name) {
    return {"configs/" + name + ".yaml", name, "preset:" + name, findPreset(name), std::nullopt};
}

Source fileSource(const fs::path& path) {
    std::string display = path.string();
    std::error_code dirError;
    if (fs::is_directory(path, dirError))
        throw BadInput(fmt::format("{}: {}", display, expectedFound("a YAML file", "a directory")));
    std::ifstream in(path);
    if (!in) throw BadInput(fmt::format("{}: cannot open for reading", display));
    std::ostringstream text;
    text << in.rdbuf();
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(path, ec);
    return {display, path.stem().string(), "file:" + (ec ? path : canonical).string(), text.str(),
            path.parent_path()};
}

// A preset name, else (when files are allowed) a path, relative to `dir` if given.
std::optional<Source> resolve(const std::string& ref, const std::optional<fs::path>& dir, bool allowFiles) {
    if (findPreset(ref)) return presetSource(ref);
    if (!allowFiles) return std::nullopt;
    fs::path p(ref);
    if (dir && p.is_relative()) p = *dir / p;
    // A name the file system cannot take (too long, say) is no file either.
    std::error_code ec;
    if (!fs::exists(p, ec)) return std::nullopt;
    return fileSource(p);
}

YAML::Node parseYaml(const Source& src) {
    try {
        return YAML::Load(src.text);
    } catch (const YAML::Exception& e) {
        if (e.mark.is_null()) throw BadInput(fmt::format("{}: YAML syntax error: {}", src.display, e.msg));
        throw BadInput(fmt::format("{}:{}:{}: YAML syntax error: {}", src.display, e.mark.line + 1,
                                   e.mark.column + 1, e.msg));
    }
}

// Applies the entries of one mapping (the top level, prefix "", or a section) to `cfg`.
void applyMapping(const YAML::Node& map, const std::string& prefix, const Source& src, HwConfig& cfg) {
    std::set<std::string> seen;
    for (const auto& entry : map) {
        if (!entry.first.IsScalar())
            throw BadInput(fmt::format("{}: {}{}", src.display, prefix.empty() ? "" : prefix + ": ",
                                       expectedFound("a key name", describe(entry.first))));
        const std::string name = entry.first.Scalar();
        const std::string path = prefix.empty() ? name : prefix + "." + name;
        const YAML::Node& value = entry.second;
        if (!seen.insert(name).second)
            throw BadInput(fmt::format("{}: {}: duplicate key", src.display, path));
        if (path == "base") continue; // applied first, by loadSource
        if (const ConfigKey* k = findConfigKey(path)) {
            std::optional<KeyValue> v;
            if (value.IsScalar()) v = k->parse(value.Scalar());
            if (!v)
                throw BadInput(fmt::format("{}: {}: {}", src.display, path,
                                           expectedFound(k->expected(), describe(value))));
            k->set(cfg, *v);
        } else if (prefix == "chip" && !unitSection(name, src.display).empty()) {
            if (!value.IsMap())
                throw BadInput(fmt::format("{}: {}: {}", src.display, path,
                                           expectedFound("a mapping of unit parameters", describe(value))));
            for (const auto& p : value) {
                if (!p.first.IsScalar() || !p.second.IsScalar())
                    throw BadInput(fmt::format("{}: {}: {}", src.display, path,
                                               expectedFound("key: value entries", describe(p.second))));
                setUnitKey(cfg, name, unitSection(name, src.display), p.first.Scalar(), p.second.Scalar(),
                           src.display);
            }
        } else if (!prefix.empty() && isSubsection(path)) {
            if (!value.IsMap())
                throw BadInput(fmt::format("{}: {}: {}", src.display, path,
                                           expectedFound("a mapping of " + path + " keys", describe(value))));
            applyMapping(value, path, src, cfg);
        } else if (prefix.empty() && isSection(name)) {
            // An empty section ("hbm:" with every key commented out) is null, which is fine.
            if (!value.IsMap() && !value.IsNull())
                throw BadInput(fmt::format("{}: {}: {}", src.display, path,
                                           expectedFound("a mapping of " + name + " keys", describe(value))));
            applyMapping(value, name, src, cfg);
        } else {
            throw BadInput(fmt::format("{}: {}", src.display, unknownKey(path, true)));
        }
    }
}

HwConfig loadSource(const Source& src, std::vector<Source>& chain) {
    chain.push_back(src);
    // Const, because a non-const operator[] would insert the key it looks up.
    const YAML::Node root = parseYaml(src);
    if (!root.IsMap() && !root.IsNull())
        throw BadInput(
            fmt::format("{}: {}", src.display, expectedFound("a mapping of config keys", describe(root))));

    HwConfig cfg;
    // The base comes first so this source's keys override it wherever `base:` appears in the file.
    if (root.IsMap() && root["base"]) {
        const YAML::Node ref = root["base"];
        // Presets are embedded, so they can only build on other presets.
        std::optional<Source> base =
            ref.IsScalar() ? resolve(ref.Scalar(), src.dir, src.dir.has_value()) : std::nullopt;
        if (!base)
            throw BadInput(fmt::format(
                "{}: base: {} (presets: {})", src.display,
                expectedFound(src.dir ? "a preset or file" : "a preset", describe(ref)), presetList()));
        for (const auto& s : chain) {
            if (s.id != base->id) continue;
            std::vector<std::string> names;
            for (const auto& c : chain)
                names.push_back(c.display);
            names.push_back(base->display);
            throw BadInput(
                fmt::format("{}: base: inheritance cycle {}", src.display, fmt::join(names, " -> ")));
        }
        cfg = loadSource(*base, chain);
    }
    // A derived config must not report its base's name.
    cfg.name = src.name;
    applyMapping(root, "", src, cfg);
    chain.pop_back();
    return cfg;
}

} // namespace

HwConfig loadHwConfig(const std::string& presetOrFile) {
    std::optional<Source> src = resolve(presetOrFile, std::nullopt, true);
    if (!src)
        throw BadInput(fmt::format("{}: no such preset or file (presets: {})", presetOrFile, presetList()));
    std::vector<Source> chain;
    return loadSource(*src, chain);
}

void applyOverride(HwConfig& cfg, const std::string& assignment) {
    auto eq = assignment.find('=');
    if (eq == std::string::npos)
        throw BadInput(fmt::format("--set {}: {}", assignment,
                                   expectedFound("<key.path>=<value>", "'" + assignment + "'")));
    const std::string path = trim(assignment.substr(0, eq));
    const std::string text = trim(assignment.substr(eq + 1));
    const ConfigKey* k = findConfigKey(path);
    if (!k && isSection(path))
        throw BadInput(fmt::format("--set {}: {}; valid keys of '{}': {}", path,
                                   expectedFound("a key", "the section '" + path + "'"), path,
                                   fmt::join(sectionKeys(path), ", ")));
    if (!k && path.rfind("chip.", 0) == 0) {
        // chip.<unit>.<key>: one unit's parameter
        auto dot = path.find('.', 5);
        if (dot != std::string::npos) {
            std::string unit = path.substr(5, dot - 5);
            std::string section = unitSection(unit, "--set");
            if (!section.empty()) return setUnitKey(cfg, unit, section, path.substr(dot + 1), text, "--set");
        }
    }
    if (!k && path == "base")
        throw BadInput("--set base: inheritance is only for files; choose the base with --hw <preset|file>");
    if (!k) throw BadInput("--set " + unknownKey(path, false));
    std::optional<KeyValue> v = k->parse(text);
    if (!v)
        throw BadInput(fmt::format("--set {}: {}", path, expectedFound(k->expected(), quoteScalar(text))));
    k->set(cfg, *v);
}

std::vector<std::string> presetNames() {
    std::vector<std::string> out;
    for (const auto& p : embeddedPresets())
        out.push_back(p.name);
    return out;
}

std::string presetDescription(const std::string& name) {
    if (!findPreset(name))
        throw BadInput(fmt::format("preset: {}", expectedFound("one of " + presetList(), "'" + name + "'")));
    return loadHwConfig(name).description;
}

std::string toYaml(const HwConfig& cfg) {
    std::string out = "# Resolved hardware configuration, every key (see docs/config.md).\n";
    // Single units' parameters close the chip section, where they are read back.
    auto units = [&] {
        std::string u;
        for (const auto& [unit, keys] : cfg.units) {
            u += fmt::format("  {}:  # parameters of this unit alone\n", unit);
            for (const auto& [p, v] : keys)
                u += fmt::format("    {}: {}\n", findConfigKey(p)->leaf(), findConfigKey(p)->format(v));
        }
        return u;
    };
    std::string section;
    for (const auto& k : configSchema()) {
        if (k.section() != section) {
            if (section == "chip") out += units();
            section = k.section();
            if (!section.empty()) out += section + ":\n";
        }
        out += fmt::format("{}{}: {}  # {}\n", section.empty() ? "" : "  ", k.leaf(), k.format(k.get(cfg)),
                           k.doc);
    }
    if (section == "chip") out += units();
    return out;
}

nlohmann::json toJson(const HwConfig& cfg) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& k : configSchema()) {
        nlohmann::json v = std::visit([](const auto& x) { return nlohmann::json(x); }, k.get(cfg));
        if (k.section().empty())
            out[k.path] = v;
        else
            out[k.section()][k.leaf()] = v;
    }
    for (const auto& [unit, keys] : cfg.units)
        for (const auto& [p, v] : keys)
            out["chip"][unit][findConfigKey(p)->leaf()] =
                std::visit([](const auto& x) { return nlohmann::json(x); }, v);
    return out;
}

} // namespace steprdu::hw
