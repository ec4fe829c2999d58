#pragma once
// The requests a tier's clients submit, handed over to the tier's engine in a canonical order: by issue
// cycle, then client (AGCU index), then source (the issuing operator), then the order the source submitted
// them. Clients submit from their own SystemC processes, so the order of submission within a cycle is the
// kernel's order of processes; the engine's arbitration breaks ties by arrival, so the tier collects the
// requests and passes on each issue cycle's once no more can come for it (evaluate, then update).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <tuple>
#include <vector>

#include "hw/mem/dram/ByteRange.h"
#include "hw/sim/SimTime.h"

namespace steprdu::hw::mem {

struct PendingRequest {
    Cycle issue = 0;
    int client = 0, source = 0;
    std::uint64_t seq = 0; // order of submission, which is program order within one source
    bool write = false;
    std::vector<ByteRange> ranges;
    int burstBytes = 0, par = 0;
    std::function<void(Cycle)> done;
    std::int64_t requests = 0; // a tier that does not model addresses keeps the count instead of the ranges
};

class RequestOrder {
  public:
    void add(PendingRequest r) {
        r.seq = seq_++;
        earliest_ = std::min(earliest_, r.issue);
        pending_.push_back(std::move(r));
    }
    bool empty() const { return pending_.empty(); }
    // The least issue cycle waiting (kNever if none).
    Cycle earliest() const { return earliest_; }
    // Removes the requests issued before `bound` and returns them in canonical order.
    std::vector<PendingRequest> takeBefore(Cycle bound) {
        std::vector<PendingRequest> out;
        if (earliest_ >= bound) return out;
        auto split = std::stable_partition(pending_.begin(), pending_.end(),
                                           [bound](const PendingRequest& r) { return r.issue >= bound; });
        out.assign(std::make_move_iterator(split), std::make_move_iterator(pending_.end()));
        pending_.erase(split, pending_.end());
        std::sort(out.begin(), out.end(), [](const PendingRequest& a, const PendingRequest& b) {
            return std::tie(a.issue, a.client, a.source, a.seq) <
                   std::tie(b.issue, b.client, b.source, b.seq);
        });
        earliest_ = kNever;
        for (const auto& r : pending_)
            earliest_ = std::min(earliest_, r.issue);
        return out;
    }

  private:
    std::vector<PendingRequest> pending_;
    std::uint64_t seq_ = 0;
    Cycle earliest_ = kNever;
};

} // namespace steprdu::hw::mem
