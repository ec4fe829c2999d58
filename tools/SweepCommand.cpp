// steprdu sweep <spec.yaml|experiment> [-j N] [--out DIR] [--emit parallel|slurm] [--shared DIR] [--quiet]
// steprdu sweep --point ID --out DIR
// steprdu collect DIR
#include <climits>
#include <filesystem>
#include <iostream>
#include <set>
#include <thread>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include "testbenches/Sweep.h"
#include "tools/Commands.h"
#include "tools/Options.h"
#include "util/Error.h"

namespace po = boost::program_options;

namespace steprdu::cli {

namespace {

std::string selfPath() {
    char buf[PATH_MAX] = {};
    const auto n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) throw StepError(ExitCode::Internal, "cannot find the steprdu binary (/proc/self/exe)");
    return std::string(buf, static_cast<std::size_t>(n));
}

} // namespace

int cmdSweep(const Args& args) {
    std::string out, emit, point, shared, backend, hw;
    std::vector<std::string> sets;
    int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    int perTask = 8;
    Flags f;
    po::options_description opts("sweep options");
    addFlags(opts, f, false);
    opts.add_options()("jobs,j", po::value(&jobs)->default_value(jobs),
                       "local processes running points at once")(
        "out", po::value(&out), "sweep directory (default: sweep-<spec name>)")(
        "emit", po::value(&emit),
        "write a job file instead of running: parallel (GNU parallel) or slurm (array script)")(
        "points-per-task", po::value(&perTask)->default_value(perTask),
        "--emit slurm: points per array task")(
        "shared", po::value(&shared),
        "folder that {shared} in the spec stands for (default: $STEPRDU_SHARED, "
        "else ../shared)")("backend", po::value(&backend),
                           "replace the spec's default backend (interp, roofline, cycle)")(
        "hw", po::value(&hw)->notifier(checkHwOption),
        "replace the spec's default hardware (preset name or YAML file)")(
        "set", po::value(&sets)->composing(), "override a hardware key in every point (repeatable)")(
        "point", po::value(&point),
        "run one point of the manifest in --out (what workers and job files run)");
    std::vector<std::string> positional;
    if (parseOrHelp(
            "sweep", args, opts, &positional, f,
            "Expand a sweep spec (configs/experiments/ format; axes may be knobs, hw.<key> or backend;\n"
            "`expand: zip` pairs the axes' values instead of their grid) into DIR/manifest.jsonl, run\n"
            "every point not yet done with N local processes into DIR/points/<id>/, and collect the\n"
            "finished points into DIR/results.csv. Re-running skips finished points. docs/sweeps.md."))
        return 0;
    if (!point.empty()) {
        if (out.empty()) throw BadInput("sweep --point: " + expectedFound("--out DIR", "nothing"));
        for (const auto& p : tb::readManifest(out))
            if (p.id == point) return tb::runSweepPoint(out, p, commandLine());
        throw BadInput(fmt::format("sweep --point: no point '{}' in {}", point, tb::manifestPath(out)));
    }
    if (positional.size() != 1)
        throw BadInput("steprdu sweep: " + expectedFound("one spec file or experiment name",
                                                         std::to_string(positional.size()) + " words"));
    if (jobs < 1) throw BadInput("--jobs: " + expectedFound("at least 1", std::to_string(jobs)));
    if (perTask < 1)
        throw BadInput("--points-per-task: " + expectedFound("at least 1", std::to_string(perTask)));
    if (!emit.empty() && emit != "parallel" && emit != "slurm")
        throw BadInput("--emit: " + expectedFound("parallel or slurm", "'" + emit + "'"));
    shared = sharedDir(shared);
    const std::string spec = positional.front();
    if (out.empty()) out = "sweep-" + std::filesystem::path(spec).stem().string();
    const auto points = tb::expandSweep(spec, shared, backend, hw, sets);
    tb::writeManifest(out, points);
    // Once for the sweep (each point's result.json has its own): swept or --set keys step_compat distorts.
    std::set<std::string> warnings;
    for (const auto& p : points)
        warnings.insert(tb::stepCompatWarning(p.request, tb::hardwareOf(p.request)));
    for (const auto& w : warnings)
        if (!w.empty() && !f.quiet) std::cerr << "steprdu: warning: " << w << "\n";
    const std::string self = selfPath();
    if (emit == "parallel") {
        const auto file = tb::emitParallel(out, self);
        std::cout << fmt::format(
            "{}\nrun it with: parallel -j <N> --joblog {}/joblog < {}   (add --sshloginfile "
            "<hosts> on a shared file system)\nthen: steprdu collect {}\n",
            file, out, file, out);
        return 0;
    }
    if (emit == "slurm") {
        const auto file = tb::emitSlurm(out, self, perTask);
        std::cout << fmt::format("{}\nsubmit it with: sbatch {}\nthen: steprdu collect {}\n", file, file,
                                 out);
        return 0;
    }
    const bool tty = f.showProgress();
    const int failed = tb::runSweep(out, jobs, self, [&](const tb::SweepProgress& p) {
        if (!tty) return;
        const int ran = p.done + p.failed;
        std::string eta;
        if (p.wallSeconds > 0 && ran > 0) {
            static int first = -1;
            if (first < 0) first = ran - 1;
            const double rate = (ran - first) / p.wallSeconds;
            eta =
                rate > 0 ? fmt::format(", {:.2f} points/s, ETA {:.0f} s", rate, (p.total - ran) / rate) : "";
        }
        std::cerr << fmt::format("\rsteprdu sweep: {}/{} points{}{}   ", p.done, p.total, eta,
                                 p.failed ? fmt::format(", {} failed", p.failed) : "")
                  << std::flush;
    });
    if (tty) std::cerr << "\n";
    int rows = 0;
    const auto csv = tb::collectSweep(out, &rows);
    std::cout << csv << "\n";
    if (failed) {
        std::cerr << fmt::format(
            "steprdu sweep: {} of {} points failed: results.csv lists them with status 'failed' and their "
            "error, {}/failed/ has each one's error.json; runs are deterministic, so a point that failed on "
            "its input or stopped making progress fails again: fix the spec or the hardware first (a new run "
            "keeps the finished points)\n",
            failed, points.size(), out);
        return 1;
    }
    return 0;
}

int cmdCollect(const Args& args) {
    Flags f;
    po::options_description opts("collect options");
    addFlags(opts, f, false, false);
    std::vector<std::string> positional;
    if (parseOrHelp(
            "collect", args, opts, &positional, f,
            "Merge every finished point of the sweep in DIR into DIR/results.csv and print its path."))
        return 0;
    if (positional.size() != 1)
        throw BadInput("steprdu collect: " +
                       expectedFound("one sweep directory", std::to_string(positional.size()) + " words"));
    int rows = 0;
    const auto csv = tb::collectSweep(positional.front(), &rows);
    std::cout << csv << "\n";
    return 0;
}

} // namespace steprdu::cli
