// make paper's drawing step (scripts/paper.py) on reduced sweeps: each figure with results becomes a PNG of
// the documented size, Fig 8 carries its Pearson r, and paper.md links every figure drawn.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "CliRun.h"

using steprdu::test::runCli;
namespace fs = std::filesystem;

namespace {

// Width and height from a PNG's IHDR chunk.
std::pair<int, int> pngSize(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    unsigned char h[24] = {};
    f.read(reinterpret_cast<char*>(h), sizeof h);
    auto be = [&](int at) { return (h[at] << 24) | (h[at + 1] << 16) | (h[at + 2] << 8) | h[at + 3]; };
    return {be(16), be(20)};
}

TEST(PaperFigures, ReducedSweepsBecomePngsOfTheExpectedSizeAndPaperMd) {
    ASSERT_EQ(std::system("/usr/bin/python3 -c 'import matplotlib' 2> /dev/null"), 0)
        << "python3-matplotlib (Debian) is missing: make deps installs it";
    const fs::path dir = fs::temp_directory_path() / ("steprdu_paper_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "sweeps");
    std::ofstream(dir / "fig8.yaml")
        << "testbench: swiglu\nhw: step_validation\nruns:\n  - sweep: {tile_b: [16, 64], "
           "tile_inter: [16, 64]}\n";
    std::ofstream(dir / "fig9.yaml")
        << "testbench: moe\nruns:\n  - label: synthetic\n    sweep: {tile_n: [16, "
           "dynamic]}\n";
    for (const std::string backend : {"roofline", "cycle"}) {
        auto r = runCli("sweep " + (dir / "fig8.yaml").string() + " --backend " + backend +
                        " --quiet --out " + (dir / "sweeps" / ("fig8-" + backend)).string());
        ASSERT_EQ(r.code, 0) << r.err;
    }
    ASSERT_EQ(runCli("sweep " + (dir / "fig9.yaml").string() + " --quiet --out " +
                     (dir / "sweeps/fig9-roofline").string())
                  .code,
              0);
    // Fig 17 from scaled-down decoder layers (series and variant as configs/experiments/fig17.yaml names
    // them).
    const std::string small =
        "{hidden: 32, heads: 4, kv_heads: 2, head_dim: 8, experts: 4, topk: 2, inter: 32, "
        "tile_f: 16, batch: 8, max_n: 4096, elem_bytes: 4";
    std::ofstream(dir / "fig17.yaml")
        << "testbench: decoder\nruns:\n  - label: mixtral\n    knobs: " << small
        << "}\n    sweep: {variant: [memory_matched, performance_matched, optimized]}\n"
        << "  - label: qwen\n    knobs: " << small
        << ", model: qwen}\n    sweep: {variant: [memory_matched, optimized]}\n";
    ASSERT_EQ(runCli("sweep " + (dir / "fig17.yaml").string() + " --quiet --out " +
                     (dir / "sweeps/fig17-roofline").string())
                  .code,
              0);
    const std::string cmd = "/usr/bin/python3 " + std::string(STEPRDU_SOURCE_DIR) + "/scripts/paper.py " +
                            dir.string() + " > /dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    for (const char* name : {"fig8", "fig9", "fig17"}) {
        const auto png = dir / "figures" / (std::string(name) + ".png");
        ASSERT_TRUE(fs::exists(png)) << png;
        EXPECT_GT(fs::file_size(png), 10'000u) << png;
        EXPECT_EQ(pngSize(png), std::make_pair(1200, 450)) << png;
    }
    EXPECT_FALSE(fs::exists(dir / "figures" / "fig10.png")); // no sweep, no figure
    std::ifstream md(dir / "paper.md");
    const std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("figures/fig8.png"), std::string::npos);
    EXPECT_NE(text.find("figures/fig9.png"), std::string::npos);
    EXPECT_NE(text.find("figures/fig17.png"), std::string::npos);
    EXPECT_NE(text.find("Fig 8 Pearson r"), std::string::npos);
    fs::remove_all(dir);
}

} // namespace
