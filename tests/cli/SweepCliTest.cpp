// steprdu sweep and collect (issue 12): a killed sweep resumes with every point exactly once and the same
// cycles as single runs; GNU parallel and Slurm job files run the same points; -j 1 and -j 2 collect the
// same CSV; a bad spec is refused before anything runs.
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include "CliRun.h"

using steprdu::test::runCli;
namespace fs = std::filesystem;

namespace {

class Sweep : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("steprdu_sweep_" + std::to_string(::getpid()) + "_" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string spec(const std::string& name, const std::string& text) {
        const auto p = dir_ / name;
        std::ofstream(p) << text;
        return p.string();
    }
    fs::path dir_;
};

// Rows of a CSV, each its cells (no quoting in these sweeps).
std::vector<std::vector<std::string>> readCsv(const fs::path& p) {
    std::ifstream f(p);
    std::vector<std::vector<std::string>> rows;
    std::string line;
    while (std::getline(f, line)) {
        std::vector<std::string> cells;
        std::stringstream s(line);
        std::string c;
        while (std::getline(s, c, ','))
            cells.push_back(c);
        rows.push_back(cells);
    }
    return rows;
}

// The CSV without its wall-clock column.
std::vector<std::vector<std::string>> withoutWall(std::vector<std::vector<std::string>> rows) {
    const auto& h = rows.at(0);
    const auto at = std::find(h.begin(), h.end(), "wall_seconds") - h.begin();
    for (auto& r : rows)
        r.erase(r.begin() + at);
    return rows;
}

int column(const std::vector<std::vector<std::string>>& rows, const std::string& name) {
    const auto& h = rows.at(0);
    const auto it = std::find(h.begin(), h.end(), name);
    EXPECT_NE(it, h.end()) << name;
    return static_cast<int>(it - h.begin());
}

const char* kSmall = R"(description: "SwiGLU on both backends, two HBM channel counts"
testbench: swiglu
runs:
  - label: small
    knobs: {tile_b: 16}
    sweep: {tile_inter: [16, 64], hw.hbm.channels: [8, 16], backend: [roofline, cycle]}
)";

TEST_F(Sweep, AKilledSweepResumesWithEveryPointOnceAndTheCyclesOfSingleRuns) {
    const auto s = spec("copy.yaml", R"(description: "copies long enough to be killed midway"
testbench: copy
backend: cycle
runs:
  - label: copy
    knobs: {bytes: 134217728}
    sweep: {streams: [1, 2, 4], hw.hbm.channels: [16, 32]}
)");
    const auto out = dir_ / "out";
    // The sweep in its own process group, killed (workers and all) once its first point has landed.
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::setpgid(0, 0);
        ::execl(STEPRDU_BINARY, STEPRDU_BINARY, "sweep", s.c_str(), "-j", "1", "--out", out.c_str(),
                "--quiet", static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::setpgid(pid, pid);
    const auto done = [&] {
        int n = 0;
        if (fs::exists(out / "points"))
            for (const auto& e : fs::directory_iterator(out / "points"))
                n += e.path().filename().string()[0] != '.';
        return n;
    };
    const auto t0 = std::chrono::steady_clock::now();
    while (done() < 1 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60))
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ::kill(-pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    const int before = done();
    ASSERT_GE(before, 1);
    EXPECT_LT(before, 6) << "the sweep finished before it could be killed";
    // A point killed mid-run leaves only a hidden partial directory; it never counts as done.
    fs::create_directories(out / "points" / ".deadbeefdeadbeef.partial-1");
    auto r = runCli("sweep " + s + " -j 1 --out " + out.string() + " --quiet");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("results.csv"), std::string::npos) << r.out;
    const auto rows = readCsv(out / "results.csv");
    ASSERT_EQ(rows.size(), 7u);
    std::set<std::string> ids;
    const int point = column(rows, "point"), state = column(rows, "status");
    for (std::size_t i = 1; i < rows.size(); ++i) {
        ids.insert(rows[i][point]);
        EXPECT_EQ(rows[i][state], "ok");
    }
    EXPECT_EQ(ids.size(), 6u);
    // Two rows against single runs of the same points, on the placement their structure shares.
    const int streams = column(rows, "streams"), channels = column(rows, "hw.hbm.channels"),
              cycles = column(rows, "cycles"), placement = column(rows, "placement");
    for (std::size_t i : {1u, 6u}) {
        auto one = runCli("run copy bytes=134217728 streams=" + rows[i][streams] +
                          " --backend cycle --set hbm.channels=" + rows[i][channels] + " --placement " +
                          (out / rows[i][placement]).string() + " --json");
        ASSERT_EQ(one.code, 0) << one.err;
        EXPECT_EQ(nlohmann::json::parse(one.out)["cycles"].dump(), rows[i][cycles]);
    }
}

// Points that differ only in bandwidths share one place and route, made once from the hardware without the
// swept bandwidth; a structural axis (pnr.seed) gives each of its values its own. results.csv names each
// cycle-level point's placement, and a single run on that placement gives the point's cycles.
TEST_F(Sweep, PointsThatChangeOnlyBandwidthsShareOnePlacement) {
    const auto s = spec("shared.yaml", R"(testbench: swiglu
backend: cycle
hw: sn40l
runs:
  - label: s
    knobs: {tile_b: 16, tile_inter: 64}
    sweep: {hw.pmu.bandwidth_bytes_per_cycle: [32, 64], hw.pnr.seed: [1, 2], backend: [cycle, roofline]}
)");
    const auto out = dir_ / "out";
    auto r = runCli("sweep " + s + " -j 2 --quiet --out " + out.string());
    ASSERT_EQ(r.code, 0) << r.err;
    const auto rows = readCsv(out / "results.csv");
    ASSERT_EQ(rows.size(), 9u);
    const int seed = column(rows, "hw.pnr.seed"), backend = column(rows, "backend"),
              placement = column(rows, "placement"), point = column(rows, "point"),
              cycles = column(rows, "cycles"), bw = column(rows, "hw.pmu.bandwidth_bytes_per_cycle");
    std::map<std::string, std::set<std::string>> bySeed;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        if (rows[i][backend] == "roofline") {
            EXPECT_EQ(rows[i][placement], "") << "the roofline places nothing";
            continue;
        }
        bySeed[rows[i][seed]].insert(rows[i][placement]);
        const auto result =
            nlohmann::json::parse(std::ifstream(out / "points" / rows[i][point] / "result.json"));
        EXPECT_EQ(result["pnr"]["reused_from"], (out / rows[i][placement]).string());
    }
    ASSERT_EQ(bySeed.size(), 2u);
    EXPECT_EQ(bySeed["1"].size(), 1u);
    EXPECT_EQ(bySeed["2"].size(), 1u);
    EXPECT_NE(*bySeed["1"].begin(), *bySeed["2"].begin());
    int files = 0;
    for (const auto& e : fs::directory_iterator(out / "placements"))
        files += e.path().extension() == ".json";
    EXPECT_EQ(files, 2) << "one place and route per structure";
    for (std::size_t i = 1; i < rows.size(); ++i) {
        if (rows[i][backend] != "cycle" || rows[i][seed] != "2") continue;
        auto one = runCli("run swiglu tile_b=16 tile_inter=64 --backend cycle --hw sn40l --set pnr.seed=2 "
                          "--set pmu.bandwidth_bytes_per_cycle=" +
                          rows[i][bw] + " --placement " + (out / rows[i][placement]).string() + " --json");
        ASSERT_EQ(one.code, 0) << one.err;
        EXPECT_EQ(nlohmann::json::parse(one.out)["cycles"].dump(), rows[i][cycles]);
    }
}

TEST_F(Sweep, OneAndTwoLocalJobsCollectTheSameCsv) {
    const auto s = spec("small.yaml", kSmall);
    auto a = runCli("sweep " + s + " -j 1 --quiet --out " + (dir_ / "j1").string());
    auto b = runCli("sweep " + s + " -j 2 --quiet --out " + (dir_ / "j2").string());
    ASSERT_EQ(a.code, 0) << a.err;
    ASSERT_EQ(b.code, 0) << b.err;
    const auto ra = readCsv(dir_ / "j1" / "results.csv");
    EXPECT_EQ(ra.size(), 9u);
    EXPECT_EQ(withoutWall(ra), withoutWall(readCsv(dir_ / "j2" / "results.csv")));
    // Each point's run directory holds meta.json with what ran and how.
    const auto meta = nlohmann::json::parse(
        std::ifstream(dir_ / "j1" / "points" / ra[1][column(ra, "point")] / "meta.json"));
    for (const char* k : {"version", "git_revision", "host", "command_line", "wall_seconds",
                          "sim_cycles_per_second", "exit_status"})
        EXPECT_TRUE(meta.contains(k)) << k;
    EXPECT_EQ(meta["exit_status"], 0);
}

TEST_F(Sweep, GnuParallelRunsTheEmittedJobsToTheSameCsv) {
    if (std::system("command -v parallel > /dev/null 2>&1") != 0)
        GTEST_SKIP() << "GNU parallel is not installed (Debian package 'parallel'; make deps installs it)";
    const auto s = spec("small.yaml", kSmall);
    ASSERT_EQ(runCli("sweep " + s + " -j 2 --quiet --out " + (dir_ / "local").string()).code, 0);
    const auto out = dir_ / "par";
    auto e = runCli("sweep " + s + " --emit parallel --out " + out.string());
    ASSERT_EQ(e.code, 0) << e.err;
    ASSERT_EQ(std::system(("parallel -j 2 --joblog " + (out / "joblog").string() + " < " +
                           (out / "jobs.parallel").string())
                              .c_str()),
              0);
    ASSERT_EQ(runCli("collect " + out.string()).code, 0);
    EXPECT_EQ(withoutWall(readCsv(out / "results.csv")),
              withoutWall(readCsv(dir_ / "local" / "results.csv")));
}

TEST_F(Sweep, TheSlurmScriptIsValidBashAndNamesEveryPointOnce) {
    const auto s = spec("small.yaml", kSmall);
    const auto out = dir_ / "slurm";
    ASSERT_EQ(runCli("sweep " + s + " --emit slurm --points-per-task 3 --out " + out.string()).code, 0);
    const auto script = out / "sweep.slurm";
    EXPECT_EQ(std::system(("bash -n " + script.string()).c_str()), 0);
    std::ifstream f(script);
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("#SBATCH --array=0-2"), std::string::npos) << text; // 8 points, 3 per task
    std::ifstream m(out / "manifest.jsonl");
    std::string line;
    int points = 0;
    while (std::getline(m, line)) {
        const std::string id = nlohmann::json::parse(line)["id"];
        std::size_t n = 0;
        for (auto at = text.find(id); at != std::string::npos; at = text.find(id, at + 1))
            ++n;
        EXPECT_EQ(n, 1u) << id;
        ++points;
    }
    EXPECT_EQ(points, 8);
}

TEST_F(Sweep, ABadSpecIsRefusedBeforeAnythingRuns) {
    const std::map<std::string, std::string> cases = {
        {"tile_iner: [16]", "did you mean 'tile_inter'?"},
        {"hw.hbm.chanels: [8]", "did you mean 'hbm.channels'?"},
        {"backend: [roofline, rtl]", "'rtl'"},
        {"tile_inter: [sixteen]", "tile_inter"},
    };
    for (const auto& [axis, want] : cases) {
        const auto s =
            spec("bad.yaml", "testbench: swiglu\nruns:\n  - label: x\n    sweep: {" + axis + "}\n");
        const auto out = dir_ / "never";
        auto r = runCli("sweep " + s + " --out " + out.string());
        EXPECT_EQ(r.code, 2) << axis;
        EXPECT_NE(r.err.find(s + ": runs[0]"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(want), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(out)) << axis;
    }
    const auto zip = spec("zip.yaml", "testbench: swiglu\nexpand: zip\nruns:\n  - label: x\n    sweep: "
                                      "{tile_inter: [16, 32], tile_b: [16]}\n");
    auto r = runCli("sweep " + zip + " --out " + (dir_ / "never").string());
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("runs[0].sweep.tile_b: zip needs axes of equal length"), std::string::npos) << r.err;
    r = runCli("collect " + (dir_ / "nothing").string());
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("manifest.jsonl missing"), std::string::npos) << r.err;
}

} // namespace
