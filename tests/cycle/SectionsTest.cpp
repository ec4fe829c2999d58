// pnr.on_overflow=sections: a decoder layer too large for a one-die, two-tile chip runs cut between its parts
// (QKV and attention, then the MoE: the attention's token rows cross the cut through HBM), and leaves
// exactly the values the interpreter computes for the uncut layer; each section's cycles add up, and a graph
// without parts is refused by name.
#include <gtest/gtest.h>

#include "step_ops/GraphBuilder.h"
#include "step_ops/Interpreter.h"
#include "testbenches/Runner.h"
#include "testbenches/Sections.h"
#include "util/Error.h"

namespace steprdu {
namespace {

const std::vector<std::string> kSmallLayer{"hidden=32", "heads=4",    "kv_heads=2",   "head_dim=8",
                                           "experts=4", "topk=2",     "inter=32",     "tile_f=16",
                                           "batch=8",   "max_n=4096", "elem_bytes=4", "moe_compute_bw=1024"};
// 260 PCUs: the layer needs 281, QKV with attention 250, the MoE 61.
const std::vector<std::string> kSmallChip{"chip.dies=1", "chip.die_tile_rows=1", "chip.die_tile_cols=2"};

tb::RunRequest request(bool sections) {
    tb::RunRequest r;
    r.testbench = "decoder";
    r.knobs = kSmallLayer;
    r.backend = "cycle";
    r.functional = true;
    r.sets = kSmallChip;
    if (sections) r.sets.push_back("pnr.on_overflow=sections");
    return r;
}

TEST(Sections, ALayerTooLargeRunsInSectionsWithTheInterpretersValues) {
    const tb::RunRequest r = request(true);
    tb::RunArtifacts art;
    const nlohmann::json j = tb::runTestbench(r, &art);
    ASSERT_EQ(j["sections"].size(), 2u);
    EXPECT_EQ(j["sections"][0]["phases"], nlohmann::json({"L0.qkv.", "L0.attn."}));
    EXPECT_EQ(j["sections"][1]["phases"], nlohmann::json({"L0.moe."}));
    // The tokens crossing the cut: 8 rows of 32 f32.
    EXPECT_EQ(j["cut_bytes"], 8 * 32 * 4);
    EXPECT_EQ(j["cycles"], j["sections"][0]["cycles"].get<std::int64_t>() +
                               j["sections"][1]["cycles"].get<std::int64_t>());

    const auto& t = tb::findTestbench("decoder");
    tb::Workload w = t.build(tb::Knobs("decoder", t.knobs(), kSmallLayer), true);
    step::Interpreter interp(true);
    interp.run(w.graph);
    const auto& want = interp.memory().values("out");
    ASSERT_TRUE(art.tensors.count("out"));
    EXPECT_EQ(art.tensors.at("out"), std::vector<float>(want.begin(), want.end()));
    EXPECT_LE(w.check(interp.memory()), 1e-5);
}

TEST(Sections, WithoutThemTheLayerIsRefusedAndAGraphWithoutPartsCannotBeCut) {
    tb::RunRequest r = request(false);
    r.functional = false;
    EXPECT_THROW(tb::runTestbench(r), BadInput);
    tb::Workload w;
    step::GraphBuilder b;
    b.tensor("x", 8, 8);
    b.sink(b.linearOffChipLoad("x", 8, 8, {1}, {1}), "s");
    w.graph = b.finish();
    try {
        tb::cutIntoSections(w, tb::hardwareOf(r));
        ADD_FAILURE() << "a graph without parts was cut";
    } catch (const BadInput& e) {
        EXPECT_NE(std::string(e.what()).find("names no parts"), std::string::npos) << e.what();
    }
}

} // namespace
} // namespace steprdu
