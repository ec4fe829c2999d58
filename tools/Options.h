#pragma once
// Command-line parsing shared by the commands: options by Boost.Program_options, free words in order, and the
// options and checks several commands have in common.
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "testbenches/Runner.h"

namespace steprdu::cli {

// The hardware preset of every command that takes --hw; `steprdu list` marks it.
inline const std::string kDefaultHw = "step_eval";

// Parses `args` against `opts`, storing into the options' variables; the words that are no option go to
// `positional` (nullptr: there must be none). Throws BadInput naming the command.
void parseOptions(const std::string& command, const std::vector<std::string>& args,
                  const boost::program_options::options_description& opts,
                  std::vector<std::string>* positional);

// --help, --json and --quiet, which most commands take.
struct Flags {
    bool help = false, json = false, quiet = false;
    // Progress goes to stderr only when it is a terminal and --quiet is not given.
    bool showProgress() const;
};
// Writes each (file name, text) into `dir`, creating it; nothing when `dir` is empty (no --out).
void writeOut(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files);
// A result's "warnings" (e.g. links place and route left over-subscribed) on stderr, unless --quiet.
void printWarnings(const nlohmann::json& result, const Flags& flags);
void addFlags(boost::program_options::options_description& opts, Flags& flags, bool withJson = true,
              bool withQuiet = true);

// parseOptions, then `steprdu <command> --help` if asked: the command's lines of the usage text, `about` (if
// any) and the options. Returns true when it printed the help (the command then returns 0).
bool parseOrHelp(const std::string& command, const std::vector<std::string>& args,
                 const boost::program_options::options_description& opts,
                 std::vector<std::string>* positional, const Flags& flags, const std::string& about = "");

// --hw (default kDefaultHw, checked by checkHwOption) and --set (repeatable).
void addHardwareOptions(boost::program_options::options_description& opts, std::string& hw,
                        std::vector<std::string>& sets,
                        const char* setHelp = "override a hardware key: --set hbm.channels=16 (repeatable)",
                        const char* hwHelp = "hardware preset name or YAML file");
// Throws BadInput unless `value` is a preset or an existing file: "--hw: expected a preset (...) or a YAML
// file, found '<value>'; did you mean '<preset>'?".
void checkHwOption(const std::string& value);

// The first free word is the testbench, the others its knobs; throws BadInput naming `command` when there is
// none.
void takeTestbench(const std::string& command, const std::vector<std::string>& positional,
                   tb::RunRequest& request);

// "; did you mean '<nearest>'?" when a candidate is near `word`, else "".
std::string didYouMean(const std::string& word, const std::vector<std::string>& candidates);

// The command line as typed (words with spaces quoted), for meta.json; main sets it once.
void setCommandLine(int argc, char** argv);
const std::string& commandLine();

// The shared data folder: `given`, else $STEPRDU_SHARED, else ../shared.
std::string sharedDir(const std::string& given);

} // namespace steprdu::cli
