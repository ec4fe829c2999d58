#pragma once
// KV-cache lengths (context tokens) of the requests in one decode batch.
#include <string>
#include <vector>

namespace steprdu::traces {

class KvLengths {
  public:
    std::string source;             // file it was read from, or a description of the generator call
    std::vector<long long> lengths; // lengths[i] = KV length of request i, >= 0

    int batch() const { return static_cast<int>(lengths.size()); }
    // The first `n` requests, for running a smaller batch on a larger trace.
    KvLengths prefix(int n) const;
};

// Reads a CSV with header "request,kv_len" and one row per request.
// Throws BadInput "<path>:<line>: <what>; expected ..., found ..." on any malformed content.
KvLengths readKvLengths(const std::string& path);

} // namespace steprdu::traces
