// steprdu list [--json] [--keys] [--stats]
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "hw/config/ConfigSchema.h"
#include "hw/config/HwConfigLoader.h"
#include "hw/sim/Stats.h"
#include "testbenches/Runner.h"
#include "testbenches/Testbench.h"
#include "tools/Commands.h"
#include "tools/Options.h"
#include "util/Error.h"

namespace po = boost::program_options;

namespace steprdu::cli {

namespace {

nlohmann::json listJson() {
    nlohmann::json j;
    for (auto& tb : tb::testbenches()) {
        nlohmann::json knobs = nlohmann::json::array();
        for (auto& k : tb->knobs())
            knobs.push_back({{"name", k.name}, {"default", k.defaultValue}, {"doc", k.doc}});
        j["testbenches"].push_back({{"name", tb->name()}, {"doc", tb->doc()}, {"knobs", knobs}});
    }
    for (auto& p : hw::presetNames())
        j["hw_presets"].push_back(
            {{"name", p}, {"doc", hw::presetDescription(p)}, {"default", p == kDefaultHw}});
    j["backends"] = tb::backendNames();
    return j;
}

} // namespace

int cmdList(const Args& args) {
    Flags f;
    bool keys = false, stats = false;
    po::options_description opts("list options");
    addFlags(opts, f);
    opts.add_options()("keys", po::bool_switch(&keys),
                       "print the hardware configuration keys as a Markdown table (docs/config.md)")(
        "stats", po::bool_switch(&stats),
        "print the cycle backend's stats as a Markdown table (docs/stats.md)");
    if (parseOrHelp("list", args, opts, nullptr, f)) return 0;
    if (keys) {
        std::cout << hw::schemaMarkdown();
        return 0;
    }
    if (stats) {
        std::cout << hw::statsMarkdown();
        return 0;
    }
    auto j = listJson();
    if (f.json) {
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << "testbenches:\n";
    for (auto& t : j["testbenches"]) {
        std::cout << fmt::format("  {:10} {}\n", t["name"].get<std::string>(), t["doc"].get<std::string>());
        for (auto& k : t["knobs"]) {
            std::string d = k["default"];
            std::cout << fmt::format("      {:12} {:10} {}\n", k["name"].get<std::string>(),
                                     d.empty() ? "(derived)" : d, k["doc"].get<std::string>());
        }
    }
    std::cout << "hardware presets (--hw):\n";
    for (auto& p : j["hw_presets"])
        std::cout << fmt::format("  {:16} {}{}\n", p["name"].get<std::string>(),
                                 p["default"].get<bool>() ? "(default) " : "", p["doc"].get<std::string>());
    const auto& backends = tb::backendNames(); // the default first
    std::cout << fmt::format("backends (--backend): {} (default), {}\n", backends.front(),
                             fmt::join(backends.begin() + 1, backends.end(), ", "));
    return 0;
}

} // namespace steprdu::cli
