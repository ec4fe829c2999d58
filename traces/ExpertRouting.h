#pragma once
// Expert routing of one MoE layer for one batch: the K experts the router chose for each token.
#include <string>
#include <vector>

namespace steprdu::traces {

class ExpertRouting {
  public:
    std::string source; // file it was read from, or a description of the generator call
    int numExperts = 0;
    int topK = 0;
    std::vector<std::vector<int>> rows; // rows[t] = the topK distinct expert ids of token t

    int batch() const { return static_cast<int>(rows.size()); }
    // Tokens routed to each expert (size numExperts); sums to batch() * topK.
    std::vector<long long> tokensPerExpert() const;
    // The first `batch` tokens, for running a smaller batch on a larger trace.
    ExpertRouting prefix(int batch) const;
};

// Reads a CSV with header "token,topk0,...,topk{K-1}" (K taken from the header) and one row per token.
// Throws BadInput "<path>:<line>: <what>; expected ..., found ..." on any malformed content.
ExpertRouting readExpertRouting(const std::string& path, int numExperts);

} // namespace steprdu::traces
