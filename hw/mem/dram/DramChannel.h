#pragma once
// The state of one DRAM channel: its ranks (or pseudo-channels), bank groups and banks, which row each bank
// has open, and for every node of that hierarchy the earliest cycle each command may issue there. Issuing a
// command pushes those earliest cycles forward by the preset's constraints (Ramulator's bookkeeping); a
// command's earliest cycle is the latest over its bank, bank group, rank and channel, and, for ACT, the
// four-activate window. Commands: ACT, PRE (one bank), RD, WR, REF (all banks of a rank).
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "hw/mem/dram/DramSpec.h"

namespace steprdu::hw::mem {

enum class DramCommand { Act, Pre, Rd, Wr, Ref };
constexpr int kDramCommands = 5;
const char* commandName(DramCommand c);

class DramChannel {
  public:
    explicit DramChannel(const DramSpec& spec);

    // Banks are numbered flat (DramSpec::flatBank).
    // The earliest cycle `c` may issue at bank `flat` (for REF, at any bank of its rank).
    std::int64_t earliest(DramCommand c, int flat) const {
        const int k = static_cast<int>(c);
        const Bank& b = banks_[flat];
        const std::int64_t t = std::max(commandBus_, ranks_[b.rank][k]);
        if (c == DramCommand::Ref) return t;
        return std::max({t, groups_[b.group][k], b.next[k]});
    }
    // Records `c` at cycle `t` at bank `flat` (which must be >= earliest); `row` for ACT.
    void issue(DramCommand c, int flat, int row, std::int64_t t);
    // Starts loading what earliest() reads of bank `flat`, so that looking at several banks overlaps the
    // loads.
    void prefetch(int flat) const { __builtin_prefetch(&banks_[flat]); }
    // The open row of a bank, or -1.
    int openRow(int flat) const { return banks_[flat].row; }
    int openBanks(int rank) const { return open_[rank]; }
    // Cycles banks had a row open up to `t`, summed over banks.
    std::int64_t openCycles(std::int64_t t) const;

  private:
    using Next = std::array<std::int64_t, kDramCommands>;
    struct Bank {
        Next next{};
        int row = -1;
        int rank = 0, group = 0; // its rank, and its bank group's flat index
        std::int64_t openedAt = 0;
    };
    static void atLeast(Next& n, DramCommand c, std::int64_t t) {
        auto& x = n[static_cast<int>(c)];
        if (t > x) x = t;
    }

    const DramSpec& spec_;
    std::int64_t commandBus_ = 0; // one command per channel per cycle
    std::vector<Next> ranks_, groups_;
    std::vector<Bank> banks_;
    // Per rank: the last four ACT cycles, a ring from the oldest at `actsAt_`; the four-activate window
    // goes into the rank's next ACT as each ACT issues.
    std::vector<std::array<std::int64_t, 4>> acts_;
    std::vector<int> actsAt_;
    std::vector<int> open_; // per rank: banks with a row open
    std::int64_t closedOpenCycles_ = 0;
};

} // namespace steprdu::hw::mem
