#pragma once
// Command-line parsing shared by the commands: options by Boost.Program_options, free words in order.
#include <string>
#include <vector>

#include <boost/program_options.hpp>

namespace steprdu::cli {

// Parses `args` against `opts`, storing into the options' variables; the words that are no option go to
// `positional` (nullptr: there must be none). Throws BadInput naming the command.
void parseOptions(const std::string& command, const std::vector<std::string>& args,
                  const boost::program_options::options_description& opts,
                  std::vector<std::string>* positional);

// The shared data folder: `given`, else $STEPRDU_SHARED, else ../shared.
std::string sharedDir(const std::string& given);

} // namespace steprdu::cli
