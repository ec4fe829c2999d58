#pragma once
// The state of one DRAM channel: its ranks (or pseudo-channels), bank groups and banks, which row each bank
// has open, and for every node of that hierarchy the earliest cycle each command may issue there. Issuing a
// command pushes those earliest cycles forward by the preset's constraints (Ramulator's bookkeeping); a
// command's earliest cycle is the latest over its bank, bank group, rank and channel, and, for ACT, the
// four-activate window. Commands: ACT, PRE (one bank), RD, WR, REF (all banks of a rank).
#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "hw/mem/DramSpec.h"

namespace steprdu::hw::mem {

enum class DramCommand { Act, Pre, Rd, Wr, Ref };
constexpr int kDramCommands = 5;
const char* commandName(DramCommand c);

class DramChannel {
  public:
    explicit DramChannel(const DramSpec& spec);

    // The earliest cycle `c` may issue at the given bank (for REF, any bank of the rank).
    std::int64_t earliest(DramCommand c, int rank, int bankGroup, int bank) const {
        const int k = static_cast<int>(c);
        std::int64_t t = std::max(channel_[k], ranks_[rank][k]);
        if (c == DramCommand::Ref) return t;
        t = std::max({t, groups_[rank * spec_.bankGroups + bankGroup][k],
                      banks_[index(rank, bankGroup, bank)].next[k]});
        if (c == DramCommand::Act && acts_[rank].size() == 4)
            t = std::max(t, acts_[rank].front() + spec_.t.nFAW);
        return t;
    }
    // Records `c` at cycle `t` (which must be >= earliest); `row` for ACT.
    void issue(DramCommand c, int rank, int bankGroup, int bank, int row, std::int64_t t);
    // The open row of a bank, or -1.
    int openRow(int rank, int bankGroup, int bank) const { return banks_[index(rank, bankGroup, bank)].row; }
    int openBanks(int rank) const { return open_[rank]; }
    // Cycles banks had a row open up to `t`, summed over banks.
    std::int64_t openCycles(std::int64_t t) const;

  private:
    using Next = std::array<std::int64_t, kDramCommands>;
    struct Bank {
        Next next{};
        int row = -1;
        std::int64_t openedAt = 0;
    };
    int index(int rank, int bankGroup, int bank) const {
        return (rank * spec_.bankGroups + bankGroup) * spec_.banks + bank;
    }
    static void atLeast(Next& n, DramCommand c, std::int64_t t) {
        auto& x = n[static_cast<int>(c)];
        if (t > x) x = t;
    }

    const DramSpec& spec_;
    Next channel_{};
    std::vector<Next> ranks_, groups_;
    std::vector<Bank> banks_;
    std::vector<std::deque<std::int64_t>> acts_; // per rank: the last four ACT cycles
    std::vector<int> open_;                      // per rank: banks with a row open
    std::int64_t closedOpenCycles_ = 0;
};

} // namespace steprdu::hw::mem
