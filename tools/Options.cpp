#include "tools/Options.h"
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include "hw/config/HwConfigLoader.h"
#include "tools/Commands.h"
#include "util/Error.h"
#include "util/Strings.h"

namespace po = boost::program_options;

namespace steprdu::cli {

void parseOptions(const std::string& command, const std::vector<std::string>& args,
                  const po::options_description& opts, std::vector<std::string>* positional) {
    std::vector<std::string> words;
    po::options_description all;
    all.add(opts).add_options()("pos", po::value(&words));
    po::positional_options_description pos;
    pos.add("pos", -1);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        throw BadInput(fmt::format("steprdu {}: {}", command, e.what()));
    }
    if (positional)
        *positional = words;
    else if (!words.empty())
        throw BadInput(
            fmt::format("steprdu {}: {}", command, expectedFound("only options", "'" + words.front() + "'")));
}

void writeOut(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files) {
    if (dir.empty()) return;
    std::filesystem::create_directories(dir);
    for (const auto& [name, text] : files)
        std::ofstream(dir + "/" + name) << text;
}

void printWarnings(const nlohmann::json& result, const Flags& flags) {
    if (flags.quiet || !result.contains("warnings")) return;
    for (const auto& w : result["warnings"])
        std::cerr << "steprdu: warning: " << w.get<std::string>() << "\n";
}

bool Flags::showProgress() const {
    return !quiet && ::isatty(STDERR_FILENO);
}

void addFlags(po::options_description& opts, Flags& flags, bool withJson, bool withQuiet) {
    opts.add_options()("help,h", po::bool_switch(&flags.help), "show this help");
    if (withJson) opts.add_options()("json", po::bool_switch(&flags.json), "print one JSON object on stdout");
    if (withQuiet)
        opts.add_options()("quiet,q", po::bool_switch(&flags.quiet),
                           "no progress or warnings on stderr (progress shows only on a terminal)");
}

void addHardwareOptions(po::options_description& opts, std::string& hw, std::vector<std::string>& sets,
                        const char* setHelp, const char* hwHelp) {
    opts.add_options()("hw", po::value(&hw)->default_value(kDefaultHw)->notifier(checkHwOption),
                       hwHelp)("set", po::value(&sets)->composing(), setHelp);
}

void checkHwOption(const std::string& value) {
    const auto presets = hw::presetNames();
    if (std::find(presets.begin(), presets.end(), value) != presets.end()) return;
    std::error_code ec; // a name the file system cannot take is no file either
    if (std::filesystem::exists(value, ec)) return;
    throw BadInput("--hw: " +
                   expectedFound(fmt::format("a preset ({}) or a YAML file", fmt::join(presets, ", ")),
                                 "'" + value + "'") +
                   didYouMean(value, presets));
}

void takeTestbench(const std::string& command, const std::vector<std::string>& positional,
                   tb::RunRequest& request) {
    if (positional.empty())
        throw BadInput(fmt::format("steprdu {}: {}", command, expectedFound("a testbench name", "nothing")));
    request.testbench = positional.front();
    request.knobs.assign(positional.begin() + 1, positional.end());
}

bool parseOrHelp(const std::string& command, const std::vector<std::string>& args,
                 const po::options_description& opts, std::vector<std::string>* positional,
                 const Flags& flags, const std::string& about) {
    parseOptions(command, args, opts, positional);
    if (!flags.help) return false;
    std::cout << "usage:\n  steprdu " << findCommand(command).synopsis << "\n\n";
    if (!about.empty()) std::cout << about << "\n\n";
    std::cout << opts << "\n";
    return true;
}

std::string didYouMean(const std::string& word, const std::vector<std::string>& candidates) {
    const auto near = nearestWord(word, candidates);
    return near ? "; did you mean '" + *near + "'?" : "";
}

namespace {
std::string& commandLineStore() {
    static std::string s;
    return s;
}
} // namespace

void setCommandLine(int argc, char** argv) {
    std::string& s = commandLineStore();
    s.clear();
    for (int i = 0; i < argc; ++i) {
        const std::string w = argv[i];
        s += (i ? " " : "") + (w.find_first_of(" \t'\"") == std::string::npos ? w : "'" + w + "'");
    }
}

const std::string& commandLine() {
    return commandLineStore();
}

std::string sharedDir(const std::string& given) {
    if (!given.empty()) return given;
    const char* env = std::getenv("STEPRDU_SHARED");
    return env ? env : "../shared";
}

} // namespace steprdu::cli
