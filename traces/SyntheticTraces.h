#pragma once
// Deterministic synthetic traces: the same arguments give the same trace on every platform and standard
// library, because only std::mt19937_64's raw output (fixed by the standard) and integer or exactly
// rounded arithmetic are used, never std:: distributions or std::shuffle.
#include <ostream>

#include "traces/ExpertRouting.h"
#include "traces/KvLengths.h"

namespace steprdu::traces {

// Each token picks topK distinct experts. Expert popularity is Zipf-like: the expert of popularity rank r
// (1-based; ranks are a seeded permutation of the experts) has weight 1 / r^skew, so skew 0 is uniform.
ExpertRouting syntheticRouting(int batch, int numExperts, int topK, unsigned long long seed, double skew);

// Roughly normal lengths (Irwin-Hall sum of 12 uniforms), rounded to integers and clipped to [minLen,
// maxLen].
KvLengths syntheticKvLengths(int batch, unsigned long long seed, long long meanLen, long long stdevLen,
                             long long minLen, long long maxLen);

// Write the CSV formats that readExpertRouting / readKvLengths accept ('\n' line ends).
void writeExpertRouting(const ExpertRouting& routing, std::ostream& out);
void writeKvLengths(const KvLengths& kv, std::ostream& out);

} // namespace steprdu::traces
