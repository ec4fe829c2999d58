#include "system/ProgramFile.h"

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "testbenches/Testbench.h"
#include "util/Error.h"

namespace steprdu::sys {

namespace {

std::string scalar(const YAML::Node& n, const std::string& where) {
    if (!n) throw BadInput(fmt::format("{}: expected a value, found none", where));
    if (!n.IsScalar()) throw BadInput(fmt::format("{}: expected a single value, found a list or map", where));
    return n.as<std::string>();
}

void onlyKeys(const YAML::Node& n, const std::string& where, const std::set<std::string>& allowed) {
    for (const auto& kv : n) {
        const std::string k = scalar(kv.first, where + ": a key");
        if (!allowed.count(k)) {
            std::string list;
            for (const auto& a : allowed)
                list += (list.empty() ? "" : ", ") + a;
            throw BadInput(fmt::format("{}: expected one of {}, found key '{}'", where, list, k));
        }
    }
}

ProgramFile parseRoot(const YAML::Node& root, const std::string& where) {
    if (!root.IsMap()) throw BadInput(fmt::format("{}: expected a map with kernels and schedule", where));
    onlyKeys(root, where, {"kernels", "schedule", "description"});
    const YAML::Node kernels = root["kernels"], schedule = root["schedule"];
    if (!kernels || !kernels.IsSequence() || kernels.size() == 0)
        throw BadInput(fmt::format("{}: kernels: expected a list of kernels, found none", where));
    ProgramBuilder p;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        const YAML::Node k = kernels[i];
        const std::string at = fmt::format("{}: kernels[{}]", where, i);
        if (!k.IsMap()) throw BadInput(at + ": expected a map (name, testbench, knobs, loop_knob)");
        onlyKeys(k, at, {"name", "testbench", "knobs", "loop_knob"});
        KernelSpec s;
        s.name = scalar(k["name"], at + ".name");
        s.testbench = scalar(k["testbench"], at + ".testbench");
        if (const YAML::Node knobs = k["knobs"]) {
            if (!knobs.IsMap()) throw BadInput(at + ".knobs: expected a map of knob: value");
            for (const auto& kv : knobs) {
                const std::string name = scalar(kv.first, at + ".knobs: a knob's name");
                s.knobs.push_back(name + "=" + scalar(kv.second, at + ".knobs." + name));
            }
        }
        if (k["loop_knob"]) s.loopKnob = scalar(k["loop_knob"], at + ".loop_knob");
        p.addKernel(std::move(s), at);
    }
    if (!schedule || !schedule.IsSequence() || schedule.size() == 0)
        throw BadInput(fmt::format("{}: schedule: expected a list of calls, found none", where));
    for (std::size_t i = 0; i < schedule.size(); ++i) {
        const YAML::Node c = schedule[i];
        const std::string at = fmt::format("{}: schedule[{}]", where, i);
        std::vector<int> group;
        auto add = [&](const std::vector<int>& runs) { group.insert(group.end(), runs.begin(), runs.end()); };
        long long repeat = 1;
        if (c.IsScalar()) {
            add(p.runsOf(c.as<std::string>(), at));
        } else if (c.IsMap()) {
            onlyKeys(c, at, {"kernel", "calls", "repeat"});
            if (c["kernel"].IsDefined() == c["calls"].IsDefined())
                throw BadInput(at + ": expected either kernel or calls, found " +
                               (c["kernel"] ? "both" : "neither"));
            if (c["kernel"]) {
                add(p.runsOf(scalar(c["kernel"], at + ".kernel"), at + ".kernel"));
            } else {
                const YAML::Node calls = c["calls"];
                if (!calls.IsSequence() || calls.size() == 0)
                    throw BadInput(at + ".calls: expected a list of kernel names, found none");
                for (std::size_t j = 0; j < calls.size(); ++j) {
                    const std::string cj = fmt::format("{}.calls[{}]", at, j);
                    add(p.runsOf(scalar(calls[j], cj), cj));
                }
            }
            if (c["repeat"]) {
                const std::string r = scalar(c["repeat"], at + ".repeat");
                try {
                    std::size_t used = 0;
                    repeat = std::stoll(r, &used);
                    if (used != r.size()) repeat = 0;
                } catch (const std::exception&) {
                    repeat = 0;
                }
                if (repeat < 1 || repeat > 1'000'000)
                    throw BadInput(
                        fmt::format("{}.repeat: expected an integer in [1, 1000000], found '{}'", at, r));
            }
        } else {
            throw BadInput(at + ": expected a kernel's name, {kernel, repeat} or {calls, repeat}");
        }
        p.call(group, repeat);
    }
    return std::move(p).finish(where);
}

} // namespace

void ProgramBuilder::addKernel(KernelSpec s, const std::string& at) {
    if (index_.count(s.name))
        throw BadInput(
            fmt::format("{}.name: expected a name no other kernel has, found '{}' again", at, s.name));
    std::vector<tb::KernelCall> calls;
    if (!s.workload) {
        const tb::Testbench* t = nullptr;
        try {
            t = &tb::findTestbench(s.testbench);
        } catch (const BadInput& e) {
            throw BadInput(fmt::format("{}.testbench: {}", at, e.what()));
        }
        try {
            calls = t->kernels(tb::Knobs(s.testbench, t->knobs(), s.knobs));
        } catch (const BadInput& e) {
            throw BadInput(fmt::format("{}.knobs: {}", at, e.what()));
        }
    }
    std::vector<int>& runs = index_[s.name];
    if (calls.empty()) {
        runs.push_back(static_cast<int>(p_.kernels.size()));
        p_.kernels.push_back(std::move(s));
        return;
    }
    if (!s.loopKnob.empty())
        throw BadInput(fmt::format("{}.loop_knob: expected none for a kernel that is a program of {} calls, "
                                   "found '{}'",
                                   at, calls.size(), s.loopKnob));
    for (const auto& c : calls) {
        const std::string name = s.name + "." + c.name;
        auto [it, added] = expanded_.emplace(name, static_cast<int>(p_.kernels.size()));
        if (added) p_.kernels.push_back({name, c.testbench, c.knobs, "", nullptr});
        runs.push_back(it->second);
    }
}

const std::vector<int>& ProgramBuilder::runsOf(const std::string& name, const std::string& at) const {
    auto it = index_.find(name);
    if (it != index_.end()) return it->second;
    std::string names;
    for (const auto& [n, _] : index_)
        names += (names.empty() ? "" : ", ") + n;
    throw BadInput(fmt::format("{}: expected a kernel of the program ({}), found '{}'", at, names, name));
}

void ProgramBuilder::call(const std::vector<int>& runs, long long repeat) {
    for (long long r = 0; r < repeat; ++r)
        p_.calls.insert(p_.calls.end(), runs.begin(), runs.end());
}

ProgramFile ProgramBuilder::finish(const std::string& where) && {
    if (p_.kernels.empty())
        throw BadInput(fmt::format("{}: kernels: expected a list of kernels, found none", where));
    if (p_.calls.empty())
        throw BadInput(fmt::format("{}: schedule: expected a list of calls, found none", where));
    return std::move(p_);
}

ProgramFile parseProgram(const std::string& text, const std::string& where) {
    // Whatever yaml-cpp still throws on a node of an unexpected kind is bad input too.
    try {
        return parseRoot(YAML::Load(text), where);
    } catch (const YAML::Exception& e) {
        throw BadInput(
            fmt::format("{}: expected YAML, found an error at line {}: {}", where, e.mark.line + 1, e.msg));
    }
}

ProgramFile readProgramFile(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw BadInput(fmt::format("{}: expected a readable program file, found none", path));
    std::stringstream ss;
    ss << in.rdbuf();
    return parseProgram(ss.str(), path);
}

} // namespace steprdu::sys
