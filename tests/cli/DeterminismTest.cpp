// The same run twice gives byte-identical results apart from wall-clock fields, on every backend: the run
// directory's files and the JSON on stdout. Wall-clock fields (wall_seconds, rates per wall second, the
// place-and-route phase timings) are removed before comparing; nothing else may differ.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/CliRun.h"

namespace steprdu::test {
namespace {

namespace fs = std::filesystem;

// Also meta.json's command line: the two runs write to different --out directories.
bool wallClockKey(const std::string& k) {
    const std::string rate = "_per_second";
    return k == "wall_seconds" || k == "seconds" || k == "command_line" ||
           (k.size() > rate.size() && k.compare(k.size() - rate.size(), rate.size(), rate) == 0);
}

void dropWallClock(nlohmann::json& j) {
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end();)
            if (wallClockKey(it.key()))
                it = j.erase(it);
            else
                dropWallClock(*it++);
    } else if (j.is_array()) {
        for (auto& x : j)
            dropWallClock(x);
    }
}

std::string readFile(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// Every file of a run directory, JSON files without their wall-clock fields.
std::vector<std::pair<std::string, std::string>> snapshot(const fs::path& dir) {
    std::vector<std::pair<std::string, std::string>> files;
    for (const auto& e : fs::directory_iterator(dir)) {
        std::string text = readFile(e.path());
        if (e.path().extension() == ".json") {
            auto j = nlohmann::json::parse(text);
            dropWallClock(j);
            text = j.dump(1);
        }
        files.emplace_back(e.path().filename().string(), text);
    }
    std::sort(files.begin(), files.end());
    return files;
}

struct Case {
    std::string name, args;
};

void PrintTo(const Case& c, std::ostream* os) {
    *os << c.args;
}

class Determinism : public ::testing::TestWithParam<Case> {};

TEST_P(Determinism, TwoRunsAreIdenticalApartFromWallClock) {
    const Case& c = GetParam();
    std::vector<std::vector<std::pair<std::string, std::string>>> dirs;
    std::vector<nlohmann::json> outs;
    for (int i = 0; i < 2; ++i) {
        const fs::path dir = fs::temp_directory_path() /
                             ("steprdu_det_" + c.name + std::to_string(i) + "_" + std::to_string(::getpid()));
        fs::remove_all(dir);
        auto r = runCli(c.args + " --json --out " + dir.string());
        ASSERT_EQ(r.code, 0) << r.err;
        auto j = nlohmann::json::parse(r.out);
        dropWallClock(j);
        outs.push_back(j);
        dirs.push_back(snapshot(dir));
        fs::remove_all(dir);
    }
    EXPECT_EQ(outs[0].dump(1), outs[1].dump(1));
    ASSERT_EQ(dirs[0].size(), dirs[1].size());
    ASSERT_GE(dirs[0].size(), 3u) << "the run directory lost its files";
    for (std::size_t f = 0; f < dirs[0].size(); ++f) {
        EXPECT_EQ(dirs[0][f].first, dirs[1][f].first);
        EXPECT_TRUE(dirs[0][f].second == dirs[1][f].second) << dirs[0][f].first << " differs between runs";
    }
}

INSTANTIATE_TEST_SUITE_P(
    EveryBackend, Determinism,
    ::testing::Values(Case{"interp_moe", "run moe model=mixtral batch=8 experts=4 topk=2 hidden=64 inter=64 "
                                         "tile_f=32 --backend interp"},
                      Case{"roofline_moe", "run moe tile_n=dynamic --backend roofline"},
                      Case{"roofline_attention", "run attention strategy=dynamic --backend roofline"},
                      Case{"cycle_swiglu", "run swiglu --backend cycle"},
                      Case{"cycle_functional_moe", "run moe model=mixtral batch=8 experts=4 topk=2 hidden=64 "
                                                   "inter=64 tile_f=32 --backend cycle --functional"},
                      Case{"cycle_attention_sn40l",
                           "run attention strategy=dynamic --backend cycle --hw sn40l"}),
    [](const auto& info) { return info.param.name; });

} // namespace
} // namespace steprdu::test
