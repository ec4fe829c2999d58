#pragma once
// A DRAM standard's organisation and timing, as the controller and the device model use them, and the
// presets the memory tiers name (hbm2, hbm2e, ddr4, ddr5). Counts per channel; all timings in cycles of the
// DRAM command clock (tCK). A transaction moves `transactionBytes` over the data bus in nBL cycles.
#include <string>
#include <vector>

#include "hw/mem/dram/MappingScheme.h"
#include "util/Choice.h"

namespace steprdu::hw::mem {

enum class DramPreset { Ddr4, Ddr5, Hbm2, Hbm2e };
const ChoiceTable<DramPreset>& choices(DramPreset);
// HBM stacks (pseudo-channels with their own data bus) or DDR channels (ranks sharing one).
enum class DramFamily { Hbm, Ddr };

struct DramTiming {
    int nBL = 4;              // data bus cycles per transaction
    int nCL = 7;              // RD to the first data
    int nCWL = 2;             // WR to the first data
    int nRCD = 7, nRCDWR = 7; // ACT to RD, ACT to WR
    int nRP = 7;              // PRE to ACT
    int nRAS = 17;            // ACT to PRE
    int nRC = 19;             // ACT to ACT, same bank
    int nWR = 8;              // end of write data to PRE
    int nRTP = 3;             // RD to PRE
    int nCCDS = 1, nCCDL = 2; // column to column, different / same bank group
    int nRRDS = 2, nRRDL = 3; // ACT to ACT, different / same bank group
    int nWTRS = 3, nWTRL = 4; // end of write data to RD, different / same bank group
    int nFAW = 15;            // four activates per window
    int nRFC = 160;           // all-bank refresh
    int nREFI = 3900;         // refresh interval
};

struct DramSpec {
    std::string name; // the preset's name
    DramFamily family = DramFamily::Hbm;
    std::string standard; // e.g. "HBM2 2 Gb/s"
    std::string source;   // where the numbers come from
    int channels = 8;
    int ranks = 2; // pseudo-channels (HBM) or ranks (DDR)
    int bankGroups = 4;
    int banks = 2;    // per bank group
    int rows = 16384; // per bank
    int columns = 16; // transactions per row
    int transactionBytes = 64;
    bool busPerRank = true; // HBM pseudo-channels have their own data bus; DDR ranks share the channel's
    double tCKps = 1000;    // command clock period, ps
    MappingScheme mapping = MappingScheme::RoBaRaCoCh;
    DramTiming t;

    int dataBuses() const { return busPerRank ? channels * ranks : channels; }
    // Peak bandwidth: every data bus moving a transaction per nBL cycles.
    double peakBytesPerCycle() const { return double(dataBuses()) * transactionBytes / t.nBL; }
    double peakGBps() const { return peakBytesPerCycle() * 1000.0 / tCKps; }
    double nsPerCycle() const { return tCKps / 1000.0; }
    std::int64_t capacityBytes() const {
        return std::int64_t(channels) * ranks * bankGroups * banks * rows * columns * transactionBytes;
    }
    int banksPerRank() const { return bankGroups * banks; }
    // A bank's number within its channel, as controllers and channels count them.
    int flatBank(int rank, int bankGroup, int bank) const {
        return (rank * bankGroups + bankGroup) * banks + bank;
    }
};

const DramSpec& dramPreset(DramPreset preset);
// Throws BadInput naming the preset and the known ones.
const DramSpec& dramPreset(const std::string& name);
std::vector<std::string> dramPresetNames();

} // namespace steprdu::hw::mem
