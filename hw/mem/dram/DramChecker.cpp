#include "hw/mem/dram/DramChecker.h"

#include <fmt/format.h>

namespace steprdu::hw::mem {

DramChecker::DramChecker(const DramSpec& spec)
    : spec_(spec), banks_(spec.ranks * spec.banksPerRank()), groups_(spec.ranks * spec.bankGroups),
      ranks_(spec.ranks), open_(spec.ranks * spec.banksPerRank(), -1), refs_(spec.ranks, kLongAgo),
      acts_(spec.ranks) {}

void DramChecker::require(bool ok, std::int64_t t, DramCommand c, const std::string& rule) {
    if (ok) return;
    ++violations_;
    if (examples_.size() < 10) examples_.push_back(fmt::format("cycle {}: {} {}", t, commandName(c), rule));
}

void DramChecker::after(std::int64_t t, std::int64_t since, int gap, DramCommand c, const char* what) {
    require(t >= since + gap, t, c, fmt::format("{} cycles after {} (needs {})", t - since, what, gap));
}

void DramChecker::check(DramCommand c, int rank, int bankGroup, int bank, int row, std::int64_t t) {
    using C = DramCommand;
    const DramTiming& T = spec_.t;
    const int bi = (rank * spec_.bankGroups + bankGroup) * spec_.banks + bank;
    Last& b = banks_[bi];
    Last& g = groups_[rank * spec_.bankGroups + bankGroup];
    Last& r = ranks_[rank];
    ++commands_;
    require(t > lastCommand_, t, c, "in a cycle the channel's command bus already used");
    // The data bus: per rank (HBM pseudo-channels) or per channel (DDR ranks).
    std::int64_t busRd = r.rd, busWr = r.wr;
    if (!spec_.busPerRank)
        for (const auto& o : ranks_) {
            busRd = std::max(busRd, o.rd);
            busWr = std::max(busWr, o.wr);
        }
    switch (c) {
    case C::Act:
        require(open_[bi] < 0, t, c, "to a bank with a row open");
        after(t, b.act, T.nRC, c, "ACT to the bank (tRC)");
        after(t, b.pre, T.nRP, c, "PRE of the bank (tRP)");
        after(t, g.act, T.nRRDL, c, "ACT in the bank group (tRRD_L)");
        after(t, r.act, T.nRRDS, c, "ACT in the rank (tRRD_S)");
        after(t, refs_[rank], T.nRFC, c, "REF of the rank (tRFC)");
        if (acts_[rank].size() == 4) after(t, acts_[rank].front(), T.nFAW, c, "the 4th-last ACT (tFAW)");
        break;
    case C::Pre:
        require(open_[bi] >= 0, t, c, "to a closed bank");
        after(t, b.act, T.nRAS, c, "ACT of the bank (tRAS)");
        after(t, b.rd, T.nRTP, c, "RD of the bank (tRTP)");
        after(t, b.wr, T.nCWL + T.nBL + T.nWR, c, "WR of the bank (tCWL + tBL + tWR)");
        break;
    case C::Rd:
        require(open_[bi] == row, t, c, fmt::format("to row {} with row {} open", row, open_[bi]));
        after(t, b.act, T.nRCD, c, "ACT of the bank (tRCD)");
        after(t, busRd, std::max(T.nBL, T.nCCDS), c, "RD on the data bus (tBL, tCCD_S)");
        after(t, g.rd, std::max(T.nBL, T.nCCDL), c, "RD in the bank group (tCCD_L)");
        after(t, busWr, T.nCWL + T.nBL + T.nWTRS, c, "WR on the data bus (tWTR_S)");
        after(t, g.wr, T.nCWL + T.nBL + T.nWTRL, c, "WR in the bank group (tWTR_L)");
        break;
    case C::Wr:
        require(open_[bi] == row, t, c, fmt::format("to row {} with row {} open", row, open_[bi]));
        after(t, b.act, T.nRCDWR, c, "ACT of the bank (tRCDWR)");
        after(t, busWr, std::max(T.nBL, T.nCCDS), c, "WR on the data bus (tBL, tCCD_S)");
        after(t, g.wr, std::max(T.nBL, T.nCCDL), c, "WR in the bank group (tCCD_L)");
        after(t, busRd, T.nCL + T.nBL + 2 - T.nCWL, c, "RD on the data bus (read-to-write turnaround)");
        break;
    case C::Ref:
        for (int k = 0; k < spec_.banksPerRank(); ++k) {
            require(open_[rank * spec_.banksPerRank() + k] < 0, t, c, "with a bank of the rank open");
            after(t, banks_[rank * spec_.banksPerRank() + k].pre, T.nRP, c, "PRE in the rank (tRP)");
        }
        after(t, refs_[rank], T.nRFC, c, "REF of the rank (tRFC)");
        after(t, r.act, T.nRC, c, "ACT in the rank (tRC)");
        break;
    }
    lastCommand_ = t;
    switch (c) {
    case C::Act:
        b.act = g.act = r.act = t;
        open_[bi] = row;
        acts_[rank].push_back(t);
        if (acts_[rank].size() > 4) acts_[rank].pop_front();
        break;
    case C::Pre:
        b.pre = g.pre = r.pre = t;
        open_[bi] = -1;
        break;
    case C::Rd:
        b.rd = g.rd = r.rd = t;
        break;
    case C::Wr:
        b.wr = g.wr = r.wr = t;
        break;
    case C::Ref:
        refs_[rank] = t;
        break;
    }
}

} // namespace steprdu::hw::mem
