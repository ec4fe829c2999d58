// Special float values (NaN with and without a payload, +inf, -inf, -0, a denormal) go through load, map,
// accumulate and store on the interpreter and, functionally, on the chip, whose tensors cross back from its
// child process: every bit must come back as IEEE 754 arithmetic in float32 gives it.
#include <cmath>

#include <gtest/gtest.h>

#include "hw/config/HwConfigLoader.h"
#include "step_ops/GraphBuilder.h"
#include "testbenches/Runner.h"
#include "util/Error.h"
#include "util/Json.h"

using namespace steprdu;

namespace {

// x is 8 x 4: two 4 x 4 tiles. Row 0 of each tile holds the special values, row 1 a denormal, a NaN with a
// payload and ordinary numbers.
std::vector<float> specialValues() {
    const float nanPayload = floatFromBits(0x7fc00123u), denormal = floatFromBits(0x00011a42u);
    std::vector<float> x;
    for (int tile = 0; tile < 2; ++tile)
        for (float v : {NAN, INFINITY, -INFINITY, -0.0f, denormal, 1.0f, 2.0f, nanPayload, 0.5f, -0.0f, 3.0f,
                        -1.0f, 1e-39f, 4.0f, 5.0f, 6.0f})
            x.push_back(v);
    return x;
}

// y = exp(x), z = x as loaded, s = the two tiles of x summed (Accum of Add from a Zero tile).
tb::Workload specialValuesWorkload() {
    step::GraphBuilder b;
    b.tensor("x", 8, 4, specialValues());
    b.tensor("y", 8, 4);
    b.tensor("z", 8, 4);
    b.tensor("s", 4, 4);
    auto xs = b.linearOffChipLoad("x", 4, 4, {1}, {2});
    b.linearOffChipStore(b.map({xs}, step::Function(step::Function::Kind::Exp)), "y");
    b.linearOffChipStore(xs, "z");
    b.linearOffChipStore(b.accum(xs, step::Function(step::Function::Kind::Add), step::InitFn::zero(4, 4), 1),
                         "s");
    tb::Workload w;
    w.graph = b.finish();
    w.params = nlohmann::json::object();
    return w;
}

std::map<std::string, std::vector<float>> run(const std::string& backend) {
    tb::RunRequest r;
    r.backend = backend;
    r.hw = "tiny";
    r.functional = backend == "cycle";
    auto w = specialValuesWorkload();
    tb::RunArtifacts art;
    auto j = tb::runWorkload(r, hw::loadHwConfig("tiny"), w, &art);
    if (backend == "cycle") {
        EXPECT_TRUE(j["scoreboard"]["equal"].get<bool>()) << j["scoreboard"].dump();
        EXPECT_EQ(j["scoreboard"]["differing_elements"].get<int>(), 0);
    }
    return art.tensors;
}

void expectSameBits(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t i = 0; i < want.size(); ++i)
        EXPECT_EQ(floatBits(got[i]), floatBits(want[i]))
            << what << "[" << i << "]: " << got[i] << " vs " << want[i];
}

} // namespace

TEST(SpecialValues, TheyTravelThroughJsonBitForBit) {
    const auto x = specialValues();
    expectSameBits(floatsFromJson(floatsToJson(x), "x"), x, "round trip");
    EXPECT_EQ(floatsToJson({NAN, -INFINITY, floatFromBits(0x7fc00123u)}).dump(),
              R"(["nan","-inf","0x7fc00123"])");
    EXPECT_THROW(floatsFromJson(nlohmann::json::array({1.0, "NaN?"}), "x"), BadInput);
    EXPECT_THROW(floatsFromJson(nlohmann::json::array({1e300}), "x"), BadInput);
}

TEST(SpecialValues, InterpreterAndChipLeaveTheSameBits) {
    const auto x = specialValues();
    // What float32 arithmetic gives, element by element.
    std::vector<float> y, s(16);
    for (float v : x)
        y.push_back(std::exp(v));
    for (int i = 0; i < 16; ++i)
        s[i] = (0.0f + x[i]) + x[16 + i];

    const auto interp = run("interp");
    expectSameBits(interp.at("z"), x, "interp z");
    expectSameBits(interp.at("y"), y, "interp y");
    expectSameBits(interp.at("s"), s, "interp s");
    // Spot checks of the rules themselves: -0 + -0 from a +0 accumulator is +0, NaN keeps its payload.
    EXPECT_EQ(floatBits(interp.at("s")[3]), 0u);
    EXPECT_EQ(floatBits(interp.at("z")[7]), 0x7fc00123u);
    EXPECT_EQ(floatBits(interp.at("y")[2]), 0u); // exp(-inf) = +0

    const auto chip = run("cycle");
    for (const char* t : {"x", "y", "z", "s"})
        expectSameBits(chip.at(t), interp.at(t), t);
}
