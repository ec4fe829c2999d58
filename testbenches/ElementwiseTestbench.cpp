#include <cmath>

#include <fmt/format.h>

#include "step_ops/GraphBuilder.h"
#include "testbenches/Testbench.h"
#include "util/Error.h"

namespace steprdu::tb {

namespace {

// One PyTorch-level operator on a matrix in off-chip memory, as an unfused model runs it: load, compute,
// store. silu(x) and a * b go tile by tile; softmax over each row takes tiles of whole rows (exp, the row's
// sum, the division), without max subtraction as the paper's attention graph.
class ElementwiseTestbench : public Testbench {
  public:
    std::string name() const override { return "elementwise"; }
    std::string doc() const override {
        return "one element-wise or row-wise operator (silu, mul, softmax) from memory to memory";
    }
    std::vector<Knob> knobs() const override;
    Workload build(const Knobs& k, bool functional) const override;
};

} // namespace

using namespace step;

std::vector<Knob> ElementwiseTestbench::knobs() const {
    return {{"op", "silu", "silu (y = x sigmoid(x)) | mul (y = a b) | softmax (each row of x)"},
            {"rows", "64", "rows of the matrix"},
            {"cols", "1024", "columns of the matrix"},
            {"tile_rows", "8", "rows per tile"},
            {"tile_cols", "", "columns per tile (default: whole rows; softmax takes whole rows)"},
            {"compute_bw", "4096", "FLOPs/cycle of each compute operator"},
            {"regions", "1", "parallel regions, each with its own share of the rows"},
            {"par_dispatch", "4", "64-byte requests each off-chip operator issues per cycle"},
            {"elem_bytes", "2", "bytes per off-chip element (2: bf16)"},
            {"seed", "5", "seed of the inputs"}};
}

Workload ElementwiseTestbench::build(const Knobs& k, bool functional) const {
    const std::string op = k.choice("op", {"silu", "mul", "softmax"});
    const std::int64_t rows = k.integer("rows", 1, 1LL << 24), cols = k.integer("cols", 1, 1LL << 24),
                       tr = k.divisor("tile_rows", rows, "rows"), bw = k.integer("compute_bw", 1, 1LL << 30),
                       par = k.integer("par_dispatch", 1, 1024), seed = k.integer("seed", 0, 1LL << 40);
    const int eb = static_cast<int>(k.integer("elem_bytes", 1, 8));
    if (op == "softmax" && k.given("tile_cols") && k.integer("tile_cols", 1, cols) != cols)
        throw BadInput(fmt::format("elementwise: knob 'tile_cols': {} (softmax takes whole rows)",
                                   expectedFound(std::to_string(cols), k.str("tile_cols"))));
    const std::int64_t tc = k.given("tile_cols") ? k.divisor("tile_cols", cols, "cols") : cols;
    // Regions share out the rows: each loads, computes and stores its own rows (its own tensors).
    const std::int64_t regions = k.divisor("regions", rows / tr, "rows / tile_rows");
    const std::int64_t mine = rows / regions, R = mine / tr, C = cols / tc;
    const int pd = static_cast<int>(par);
    const MapOptions o{bw, false};
    const int inputs = op == "mul" ? 2 : 1;
    auto named = [regions](const std::string& t, std::int64_t r) {
        return regions == 1 ? t : fmt::format("{}{}", t, r);
    };
    GraphBuilder b;
    for (std::int64_t r = 0; r < regions; ++r) {
        const std::string sfx = regions == 1 ? "" : fmt::format("_r{}", r);
        std::vector<Stream> in;
        for (int i = 0; i < inputs; ++i) {
            const std::string t = named(i ? "b" : (op == "mul" ? "a" : "x"), r);
            b.tensor(t, mine, cols, "randn", static_cast<std::uint64_t>(seed * 100 + 10 * r + i + 1));
            in.push_back(b.linearOffChipLoad(t, tr, tc, {C, 1}, {R, C}, std::nullopt, eb, pd, "load_" + t));
        }
        b.tensor(named("y", r), mine, cols);
        Stream y;
        if (op == "silu") {
            y = b.map({in[0]}, Function(Function::Kind::Silu), o, "silu" + sfx);
        } else if (op == "mul") {
            y = b.map({in[0], in[1]}, Function(Function::Kind::Mul), o, "mul" + sfx);
        } else {
            Stream e = b.map({in[0]}, Function(Function::Kind::Exp), o, "exp" + sfx);
            Stream sum = b.map({e}, Function(Function::Kind::RowWiseSum), o, "row_sum" + sfx);
            y = b.map({e, sum}, Function(Function::Kind::Div), {bw, true}, "div" + sfx);
        }
        b.linearOffChipStore(y, named("y", r), pd, "store_y" + sfx);
    }
    Workload w;
    w.graph = b.finish();
    w.params = {{"op", op},           {"rows", rows},     {"cols", cols},        {"tile_rows", tr},
                {"tile_cols", tc},    {"compute_bw", bw}, {"par_dispatch", par}, {"elem_bytes", eb},
                {"regions", regions}, {"seed", seed}};
    w.timingElemBytes = eb == 2 ? 2 : 0;
    w.check = [=](const TensorStore& mem) {
        std::vector<float> got;
        std::vector<double> want;
        for (std::int64_t g = 0; g < regions; ++g) {
            const auto& x = mem.values(named(op == "mul" ? "a" : "x", g));
            const auto& y = mem.values(named("y", g));
            got.insert(got.end(), y.begin(), y.end());
            std::vector<double> part(x.begin(), x.end());
            if (op == "silu") {
                for (auto& v : part)
                    v = v / (1.0 + std::exp(-v));
            } else if (op == "mul") {
                const auto& bv = mem.values(named("b", g));
                for (std::size_t i = 0; i < part.size(); ++i)
                    part[i] *= bv[i];
            } else {
                for (std::int64_t r = 0; r < mine; ++r) {
                    double sum = 0;
                    for (std::int64_t c = 0; c < cols; ++c)
                        sum += part[r * cols + c] = std::exp(part[r * cols + c]);
                    for (std::int64_t c = 0; c < cols; ++c)
                        part[r * cols + c] /= sum;
                }
            }
            want.insert(want.end(), part.begin(), part.end());
        }
        return relativeError(got, want);
    };
    (void)functional;
    return w;
}

std::unique_ptr<Testbench> makeElementwiseTestbench() {
    return std::make_unique<ElementwiseTestbench>();
}

} // namespace steprdu::tb
