// The random program generator and the differential test: programs are reproducible from their seed, cover
// every operator family the issue names, and a fault on one executor is caught, minimized and written as a
// graph file that run-graph loads.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "step_ops/Metrics.h"
#include "testbenches/DiffTest.h"
#include "testbenches/Runner.h"
#include "util/Error.h"

using namespace steprdu;
using namespace steprdu::tb;

namespace {

// One die tile: the programs fit, and elaborating it is four times cheaper than the full step_eval chip.
const std::vector<std::string> kOneTile = {"chip.dies=1", "chip.die_tile_rows=1", "chip.die_tile_cols=1"};

bool hasKind(const step::Graph& g, const std::string& kind) {
    for (int i = 0; i < g.numOps(); ++i)
        if (g.op(i).kind() == kind) return true;
    return false;
}

TEST(RandomProgram, TheSameSeedGivesTheSameProgramAndOthersDiffer) {
    const auto a = randomProgramJson(buildRandomProgram(planRandomProgram(42))).dump();
    EXPECT_EQ(a, randomProgramJson(buildRandomProgram(planRandomProgram(42))).dump());
    EXPECT_NE(a, randomProgramJson(buildRandomProgram(planRandomProgram(43))).dump());
}

TEST(RandomProgram, TwoHundredProgramsCoverEveryOperatorFamilyAndDataDependentSizes) {
    std::set<std::string> kinds;
    int dynamic = 0, ragged = 0, empty = 0;
    for (std::uint64_t s = 1; s <= 200; ++s) {
        const auto p = buildRandomProgram(planRandomProgram(s));
        kinds.insert(p.families.begin(), p.families.end());
        for (const auto& [sym, v] : p.bindings) {
            ragged += sym.find("_dyn") != std::string::npos || sym.find("_len") != std::string::npos;
            dynamic += sym.find("partition_") != std::string::npos || sym.find("split_") != std::string::npos;
            empty += v == 0;
        }
        // Every binding is the generator's own count: the metrics bind with nothing left over.
        EXPECT_NO_THROW(step::bindMetrics(p.graph, step::analyzeGraph(p.graph), p.bindings)) << "seed " << s;
    }
    for (const char* k :
         {"LinearOffChipLoad", "LinearOffChipStore", "RandomOffChipLoad", "RandomOffChipStore", "Map",
          "Accum", "Scan", "FlatMap", "Reshape", "Flatten", "Promote", "Expand", "Partition", "Reassemble",
          "EagerMerge", "Bufferize", "Streamify", "Parallelize"})
        EXPECT_TRUE(kinds.count(k)) << k << " never generated";
    EXPECT_GT(dynamic, 50);
    EXPECT_GT(ragged, 50);
    EXPECT_GT(empty, 5); // empty partition outputs and empty gathers
}

TEST(DiffTest, FortyProgramsAgreeOnEveryExecutor) {
    DiffTestOptions o;
    o.sets = kOneTile;
    const auto r = runDiffTest(1, 40, o);
    EXPECT_EQ(r.programs, 40);
    EXPECT_EQ(r.passed, 40) << r.toJson().dump(1);
}

TEST(DiffTest, AFaultOnTheCycleBackendIsCaughtMinimizedAndWrittenForRunGraph) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("steprdu_difftest_" + std::to_string(::getpid()));
    DiffTestOptions o;
    o.sets = kOneTile;
    o.outDir = dir.string();
    // Off by half on every input value, only in programs with a Scan.
    o.cycleFault = [](step::Graph& g) {
        if (!hasKind(g, "Scan")) return;
        for (const auto& t : g.tensors())
            if (t.values) {
                auto v = *t.values;
                for (auto& x : v)
                    x += 0.5f;
                g.setTensorValues(t.name, v);
            }
    };
    const auto r = runDiffTest(1, 30, o);
    int scans = 0;
    for (std::uint64_t s = 1; s <= 30; ++s)
        scans += hasKind(buildRandomProgram(planRandomProgram(s)).graph, "Scan");
    ASSERT_GT(scans, 0);
    EXPECT_EQ(r.programs - r.passed, scans);
    ASSERT_EQ(r.failures.size(), static_cast<std::size_t>(scans));
    const auto j = r.toJson();
    EXPECT_EQ(j["failed"], scans);
    EXPECT_EQ(j["failing_seeds"].size(), static_cast<std::size_t>(scans));
    for (const auto& f : r.failures) {
        EXPECT_EQ(f.reason.rfind("cycle: tensor", 0), 0u) << f.reason;
        EXPECT_NE(f.command.find("run-graph " + f.reproducer + " --backend cycle --functional"),
                  std::string::npos);
        // The minimized program still has its Scan and is no larger than the original.
        const auto g = step::Graph::load(f.reproducer);
        EXPECT_TRUE(hasKind(g, "Scan"));
        EXPECT_LE(g.numOps(), buildRandomProgram(planRandomProgram(f.seed)).graph.numOps());
        // run-graph binds its data-dependent sizes from the file.
        RunRequest req;
        req.testbench = "graph";
        req.knobs = {"file=" + f.reproducer};
        req.backend = "roofline";
        const auto run = runTestbench(req);
        EXPECT_EQ(run["simulated_off_chip_bytes"], run["off_chip_bytes"]);
    }
    std::filesystem::remove_all(dir);
}

TEST(DiffTest, AnUnknownBackendIsRefusedBeforeAnythingRuns) {
    DiffTestOptions o;
    o.backends = {"interp", "rtl"};
    try {
        runDiffTest(1, 1, o);
        FAIL();
    } catch (const BadInput& e) {
        EXPECT_NE(std::string(e.what()).find("'rtl'"), std::string::npos) << e.what();
    }
}

} // namespace
