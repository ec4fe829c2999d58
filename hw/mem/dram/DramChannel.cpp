#include "hw/mem/dram/DramChannel.h"

#include <algorithm>

namespace steprdu::hw::mem {

const char* commandName(DramCommand c) {
    switch (c) {
    case DramCommand::Act:
        return "ACT";
    case DramCommand::Pre:
        return "PRE";
    case DramCommand::Rd:
        return "RD";
    case DramCommand::Wr:
        return "WR";
    case DramCommand::Ref:
        return "REF";
    }
    return "?";
}

DramChannel::DramChannel(const DramSpec& spec)
    : spec_(spec), ranks_(spec.ranks, Next{}), groups_(spec.ranks * spec.bankGroups, Next{}),
      banks_(spec.ranks * spec.banksPerRank()), acts_(spec.ranks), actsAt_(spec.ranks, 0),
      open_(spec.ranks, 0) {
    // Four activates long ago: no window yet.
    for (auto& a : acts_)
        a.fill(-(std::int64_t(1) << 40));
    for (int i = 0; i < static_cast<int>(banks_.size()); ++i) {
        banks_[i].rank = i / spec.banksPerRank();
        banks_[i].group = i / spec.banks;
    }
}

std::int64_t DramChannel::openCycles(std::int64_t t) const {
    std::int64_t sum = closedOpenCycles_;
    for (const auto& b : banks_)
        if (b.row >= 0) sum += t - b.openedAt;
    return sum;
}

void DramChannel::issue(DramCommand c, int flat, int row, std::int64_t t) {
    using C = DramCommand;
    const DramTiming& T = spec_.t;
    Bank& b = banks_[flat];
    const int rank = b.rank;
    Next& r = ranks_[rank];
    Next& g = groups_[b.group];
    commandBus_ = t + 1;
    switch (c) {
    case C::Act:
        b.row = row;
        b.openedAt = t;
        ++open_[rank];
        atLeast(b.next, C::Act, t + T.nRC);
        atLeast(b.next, C::Rd, t + T.nRCD);
        atLeast(b.next, C::Wr, t + T.nRCDWR);
        atLeast(b.next, C::Pre, t + T.nRAS);
        atLeast(g, C::Act, t + T.nRRDL);
        atLeast(r, C::Act, t + T.nRRDS);
        atLeast(r, C::Ref, t + T.nRC);
        acts_[rank][actsAt_[rank]] = t;
        actsAt_[rank] = (actsAt_[rank] + 1) % 4;
        atLeast(r, C::Act, acts_[rank][actsAt_[rank]] + T.nFAW); // the 4th-last ACT, this one included
        break;
    case C::Pre:
        closedOpenCycles_ += t - b.openedAt;
        b.row = -1;
        --open_[rank];
        atLeast(b.next, C::Act, t + T.nRP);
        atLeast(r, C::Ref, t + T.nRP);
        break;
    case C::Rd:
        atLeast(r, C::Rd, t + std::max(T.nBL, T.nCCDS));
        atLeast(r, C::Wr, t + T.nCL + T.nBL + 2 - T.nCWL);
        atLeast(g, C::Rd, t + std::max(T.nBL, T.nCCDL));
        atLeast(b.next, C::Pre, t + T.nRTP);
        break;
    case C::Wr:
        atLeast(r, C::Wr, t + std::max(T.nBL, T.nCCDS));
        atLeast(r, C::Rd, t + T.nCWL + T.nBL + T.nWTRS);
        atLeast(g, C::Wr, t + std::max(T.nBL, T.nCCDL));
        atLeast(g, C::Rd, t + T.nCWL + T.nBL + T.nWTRL);
        atLeast(b.next, C::Pre, t + T.nCWL + T.nBL + T.nWR);
        break;
    case C::Ref:
        atLeast(r, C::Act, t + T.nRFC);
        atLeast(r, C::Ref, t + T.nRFC);
        break;
    }
    // Ranks sharing the channel's data bus (DDR) see each other's bursts.
    if (!spec_.busPerRank && (c == C::Rd || c == C::Wr))
        for (int o = 0; o < spec_.ranks; ++o)
            if (o != rank) {
                atLeast(ranks_[o], C::Rd, t + T.nBL + 2);
                atLeast(ranks_[o], C::Wr, t + T.nBL + 2);
            }
}

} // namespace steprdu::hw::mem
