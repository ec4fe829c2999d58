#pragma once
// QKV generation of a decoder layer (STeP 5.5) as a part of a graph: x[B, hidden] times the fused QKV weight
// [hidden, (heads + 2 kv_heads) x head_dim] as a weight-streaming GEMM, the batch split over `regions` (four
// in the paper). Each weight tile (tile_k x head_dim: one head's columns) is loaded once and broadcast to
// every region, whose x rows are re-read per head and reduced over hidden in a MapAccum. The results leave
// as rows, stored where the attention graph reads them: the query rows of token b and head h at row
// b x heads + h of the query tensor (so the queries of one KV head are one queries_per_kv x head_dim tile),
// the new key and value rows of token b and KV head g at row b x kv_heads + g.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "step_ops/GraphBuilder.h"

namespace steprdu::tb {

// A model's attention heads: the dimensions the artifact's scripts use (../shared/docs/experiments.md 4.5).
// Qwen3-30B-A3B's head_dim is 64 there (the model card says 128; 32 x 64 is its hidden 2048), Mixtral-8x7B's
// 128.
struct HeadModel {
    std::int64_t hidden, heads, kvHeads, headDim;
};
// "qwen", else Mixtral.
HeadModel headModel(const std::string& name);

struct QkvShape {
    std::int64_t hidden = 4096, heads = 32, kvHeads = 8, headDim = 128;
    std::int64_t batch = 64, regions = 4, tileK = 4096, computeBw = 4096;
    // Column groups (divides heads and kv_heads): each streams its own heads' weight columns to its own
    // regions, so that more than one matmul's port pulls weights at a time.
    std::int64_t groups = 1;
    int elemBytes = 2, parDispatch = 16;
};

struct QkvPorts {
    std::string x = "x", weight = "W_qkv"; // B x hidden; hidden x (heads + 2 kv_heads) head_dim
    std::string query = "query", kNew = "k_new", vNew = "v_new"; // B heads, B kv_heads, B kv_heads x head_dim
    std::optional<step::Stream> after;                           // the x loads wait for one element of it
    // When set, collects the stores' acknowledgements instead of sinking them.
    std::vector<step::Stream>* acks = nullptr;
};

// Adds the part to `b` (operators named with b's prefix).
void buildQkv(step::GraphBuilder& b, const QkvShape& s, const QkvPorts& io);

} // namespace steprdu::tb
