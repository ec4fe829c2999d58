#pragma once
// A mixture-of-experts layer with SwiGLU experts (the paper's Figs 9, 10, 12, 13) as a part of a graph: the
// moe testbench runs it alone, the decoder after attention. Tokens are routed to their top-k experts by a
// trace, packed into tiles of tile_n rows (static, padded) or one tile per expert (dynamic), run through
// their experts' up/gate/down projections, weighted and gathered back per token. Fewer regions than experts
// time-multiplex them: a region merges its experts' tiles and addresses the weights of the expert at hand.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "step_ops/GraphBuilder.h"
#include "step_ops/Interpreter.h"
#include "traces/ExpertRouting.h"

namespace steprdu::tb {

struct MoeModel {
    int experts, topK;
    std::int64_t hidden, inter;
};
// Qwen3-30B-A3B or Mixtral-8x7B (the default).
MoeModel moeModel(const std::string& name);

// The region weight tensors' roles, `which` = 0, 1, 2.
inline const char* const kMoeWeightNames[] = {"W_up", "W_gate", "W_down"};

struct MoeShape {
    int E = 8, K = 2, R = 8; // experts, experts per token, regions (R < E: time-multiplexed)
    std::int64_t D = 4096, F = 14336, tf = 64;
    bool dynamic = false;
    std::int64_t T = 16; // rows per static tile
    int eb = 2;
    int loadPar = 1; // 64-byte requests each weight load issues per cycle (the scripts': 1)
    std::int64_t bw = 4096, packBw = 4096; // FLOPs/cycle of the experts' operators and of the packing
    std::int64_t matmulBw = 4096;          // FLOPs/cycle of each up, gate and down matmul
    traces::ExpertRouting routing;
};

struct MoePorts {
    // The tokens: a stream [1, B] of 1 x D rows, or else loaded from this tensor.
    std::optional<step::Stream> x;
    std::string xTensor = "x";
    std::string routingWeights = "routing_weights"; // B x K, in the trace's top-k order
    // Region r's W_up (which = 0, D x F per expert), W_gate (1) or W_down (2, F x D) tensor, its experts'
    // matrices stacked along rows; the caller creates it.
    std::function<std::string(int which, int r)> weight;
    std::string out = "out"; // B x D
    // When set, the output rows are stored with acknowledgements, collected here.
    std::vector<step::Stream>* outAcks = nullptr;
};

struct MoeGraph {
    step::Bindings bindings, rateBindings;
    std::int64_t figureFlops = 0, paddedFlops = 0; // the paper scripts' count, and its padding rows' part
};

// Routing weights: a softmax over each token's K random logits (the paper uses random weights too), B x K.
std::vector<float> softmaxRoutingWeights(std::int64_t B, int K, std::uint64_t seed);

// Adds the layer to `b` (operators named with b's prefix).
MoeGraph buildMoe(step::GraphBuilder& b, const MoeShape& m, const MoePorts& io);

} // namespace steprdu::tb
