// steprdu difftest [--count N] [--seed S] [--backends interp,roofline,cycle] [--hw ..] [--set ..] [--out DIR]
//                  [--json] [--quiet]
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "testbenches/DiffTest.h"
#include "tools/Commands.h"
#include "tools/Options.h"
#include "util/Error.h"
#include "util/Strings.h"

namespace po = boost::program_options;

namespace steprdu::cli {

int cmdDiffTest(const Args& args) {
    tb::DiffTestOptions o;
    int count = 100;
    std::uint64_t seed = 1;
    std::string backends = "interp,roofline,cycle";
    Flags f;
    po::options_description opts("difftest options");
    addFlags(opts, f);
    opts.add_options()("count", po::value(&count)->default_value(count), "number of random programs")(
        "seed", po::value(&seed)->default_value(seed), "seed of the first program (then seed+1, ...)")(
        "backends", po::value(&backends)->default_value(backends), "comma-separated executors to check");
    addHardwareOptions(opts, o.hw, o.sets);
    opts.add_options()("depth", po::value(&o.channelDepth)->default_value(o.channelDepth),
                       "stream FIFO depth in elements")("out", po::value(&o.outDir)->default_value(o.outDir),
                                                        "directory for minimized failing programs");
    if (parseOrHelp("difftest", args, opts, nullptr, f,
                    "Run random well-typed STeP programs on the executors and check that they agree: the\n"
                    "interpreter's output tensors bit for bit on the cycle backend (functional), off-chip "
                    "bytes\nequal to the symbolic metric everywhere, no deadlock, and cycle-level cycles no "
                    "fewer than\nthe physical lower bounds. A failing program is minimized and written to "
                    "--out as a graph\nfile that `steprdu run-graph` reproduces. Exit status 1 when any "
                    "program fails."))
        return 0;
    if (count < 1) throw BadInput("--count: " + expectedFound("a positive number", std::to_string(count)));
    if (o.channelDepth < 1)
        throw BadInput("--depth: " + expectedFound("a depth >= 1", std::to_string(o.channelDepth)));
    o.backends = split(backends, ',');
    if (f.showProgress())
        o.progress = [](int done, int total, int failed) {
            std::cerr << fmt::format("\rsteprdu difftest: {}/{} programs, {} failed", done, total, failed)
                      << (done == total ? "\n" : "") << std::flush;
        };
    const auto rep = tb::runDiffTest(seed, count, o);
    if (f.json) {
        std::cout << rep.toJson().dump(2) << "\n";
    } else {
        std::cout << fmt::format("difftest: {} programs ({} operators) on {}: {} passed, {} failed\n",
                                 rep.programs, rep.operators, backends, rep.passed,
                                 rep.programs - rep.passed);
        std::string fam;
        for (const auto& [kind, n] : rep.families)
            fam += fmt::format(" {} {}", kind, n);
        std::cout << "  programs using each operator kind:" << fam << "\n";
        for (const auto& f : rep.failures)
            std::cout << fmt::format("  seed {}: {}\n    reproduce: {}\n", f.seed, f.reason, f.command);
    }
    return rep.failures.empty() ? 0 : 1;
}

} // namespace steprdu::cli
