// steprdu plot DIR [--x AXIS] [--y COLUMN] [--out FILE] [--logy] [--json]
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include <sys/wait.h>
#include <unistd.h>

#include <boost/program_options.hpp>

#include "tools/Commands.h"
#include "tools/EmbeddedPython.h"
#include "tools/Options.h"
#include "util/Error.h"

namespace po = boost::program_options;

namespace steprdu::cli {

namespace {

// Debian's python3, where python3-matplotlib is installed (make deps); STEPRDU_PYTHON overrides it.
std::string pythonBinary() {
    if (const char* p = std::getenv("STEPRDU_PYTHON"); p && *p) return p;
    return std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

const char* plotScript() {
    for (const auto& f : embeddedPython())
        if (std::strcmp(f.name, "sweep_plot") == 0) return f.text;
    throw std::runtime_error("sweep_plot.py is not compiled into this binary");
}

} // namespace

int cmdPlot(const Args& args) {
    Flags f;
    std::string x, y = "cycles", out;
    bool logy = false;
    po::options_description opts("plot options");
    addFlags(opts, f);
    opts.add_options()("x", po::value(&x), "the swept axis along x (default: the sweep's first axis)")(
        "y", po::value(&y)->default_value(y), "the results.csv column along y")(
        "out", po::value(&out), "the PNG to write (default: DIR/plot.png)")("logy", po::bool_switch(&logy),
                                                                            "a logarithmic y axis");
    std::vector<std::string> positional;
    if (parseOrHelp(
            "plot", args, opts, &positional, f,
            "Draw a sweep directory's results.csv as a PNG: the swept axis against cycles (or --y), one\n"
            "series per backend, series label and value of the other axes; failed points marked in red\n"
            "at the foot. Runs python/steprdu/sweep_plot.py (compiled in) with Debian's python3 and\n"
            "python3-matplotlib ($STEPRDU_PYTHON to use another). docs/cli.md."))
        return 0;
    if (positional.size() != 1)
        throw BadInput("steprdu plot: " + expectedFound("one sweep directory",
                                                        std::to_string(positional.size()) + " arguments"));
    const std::string& dir = positional[0];
    if (!std::filesystem::is_directory(dir))
        throw BadInput("steprdu plot: " + dir + ": " + expectedFound("a sweep directory", "no directory"));
    const std::string python = pythonBinary();
    std::vector<std::string> argv{python, "-c", plotScript(), dir, "--y", y};
    if (!x.empty()) argv.insert(argv.end(), {"--x", x});
    if (!out.empty()) argv.insert(argv.end(), {"--out", out});
    if (logy) argv.push_back("--logy");
    if (f.json) argv.push_back("--json");
    std::vector<char*> cargv;
    for (auto& a : argv)
        cargv.push_back(a.data());
    cargv.push_back(nullptr);
    std::cout.flush();
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("steprdu plot: fork: ") + std::strerror(errno));
    if (pid == 0) {
        execvp(cargv[0], cargv.data());
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    if (code == 127)
        throw BadInput("steprdu plot: cannot run '" + python +
                       "': it needs Python 3 with python3-matplotlib (make deps installs both)");
    return code;
}

} // namespace steprdu::cli
