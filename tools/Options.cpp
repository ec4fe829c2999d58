#include "tools/Options.h"
#include <cstdlib>

#include <fmt/format.h>

#include "util/Error.h"

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

std::string sharedDir(const std::string& given) {
    if (!given.empty()) return given;
    const char* env = std::getenv("STEPRDU_SHARED");
    return env ? env : "../shared";
}

} // namespace steprdu::cli
