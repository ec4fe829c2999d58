#include "hw/mem/dram/DramSpec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/Error.h"
#include "util/Strings.h"

namespace steprdu::hw::mem {

namespace {

std::vector<DramSpec> presets() {
    std::vector<DramSpec> v;
    {
        // Ramulator 2.0's classic HBM2 as the STeP HDL validation configured it: HBM2_2Gb organisation, 8
        // channels, HBM2_2Gbps timing (dam-step-perf-dram.md 2.5, 3.2). A 64-bit pseudo-channel at 2 Gb/s
        // moves 16 B per tCK, so a 64-byte transaction is nBL = 4 cycles; 8 x 2 x 16 = 256 B per 1 ns cycle,
        // the 256 B/cycle of the paper. A 1 KiB page (64 columns of 16 B) holds 16 transactions.
        DramSpec s;
        s.name = "hbm2";
        s.family = DramFamily::Hbm;
        s.standard = "HBM2 2 Gb/s, 8 channels x 2 pseudo-channels (one stack)";
        s.source = "Ramulator 2.0 HBM2_2Gb + HBM2_2Gbps as in the STeP HDL validation (dam-step-perf-dram.md "
                   "2.5, 3.2)";
        s.channels = 8;
        s.ranks = 2;
        s.bankGroups = 4;
        s.banks = 2;
        s.rows = 16384;
        s.columns = 16;
        s.tCKps = 1000;
        s.t = {4, 7, 2, 7, 7, 7, 17, 19, 8, 3, 1, 2, 2, 3, 3, 4, 15, 160, 3900};
        v.push_back(s);
    }
    {
        // HBM2E at 3.6 Gb/s for the SN40L's 1.8 TB/s: 4 stacks x 8 channels x 2 pseudo-channels of 64 bits,
        // 16 B per tCK of 556 ps: 64 x 16 B x 1.8 GHz = 1843 GB/s (hardware-and-pnr.md 7.4: 4 stacks x 16
        // pseudo-channels x 24 B per 1.2 GHz cycle). Timings are JEDEC-like HBM2 nanoseconds (Ramulator 2's
        // revised HBM2-2000 preset: tCL 14, tRCD 14/12, tRP 14, tRAS 34, tRC 48, tWR 16, tRTP 5, tRRD 4, tFAW
        // 15, tWTR 6/8, tRFC 350 (8 Gb), tREFI 3900 ns; dam-step-perf-dram.md 3.4) at 556 ps, rounded up.
        DramSpec s;
        s.name = "hbm2e";
        s.family = DramFamily::Hbm;
        s.standard = "HBM2E 3.6 Gb/s, 4 stacks x 8 channels x 2 pseudo-channels";
        s.source = "organisation: hardware-and-pnr.md 7.4; timing: Ramulator 2 HBM2 nanoseconds at 556 ps "
                   "(dam-step-perf-dram.md 3.4), derived";
        s.channels = 32;
        s.ranks = 2;
        s.bankGroups = 4;
        s.banks = 4;
        s.rows = 32768;
        s.columns = 16;
        s.tCKps = 556;
        s.t = {4, 26, 9, 26, 22, 26, 62, 87, 29, 9, 2, 4, 8, 8, 11, 15, 27, 630, 7020};
        v.push_back(s);
    }
    {
        // DDR4-2400R, DDR4_8Gb_x8, one 64-bit channel, one rank (dam-step-perf-dram.md 3.7): BL8 moves 64 B
        // in 4 tCK of 833 ps: 19.2 GB/s. An 8 KiB page holds 128 transactions. Consecutive transactions stay
        // in one bank group under RoBaRaCoCh, where tCCD_L (6) > nBL (4) caps a stream at 67%; MOP4
        // interleaves bank groups every 4 columns.
        DramSpec s;
        s.name = "ddr4";
        s.family = DramFamily::Ddr;
        s.standard = "DDR4-2400R x8, 1 channel, 1 rank";
        s.source = "Ramulator 2.0 DDR4_8Gb_x8 + DDR4_2400R (dam-step-perf-dram.md 3.7)";
        s.channels = 1;
        s.ranks = 1;
        s.bankGroups = 4;
        s.banks = 4;
        s.rows = 65536;
        s.columns = 128;
        s.busPerRank = false;
        s.tCKps = 833;
        s.mapping = MappingScheme::Mop4;
        s.t = {4, 16, 12, 16, 16, 16, 39, 55, 18, 9, 4, 6, 4, 6, 3, 9, 26, 433, 9364};
        v.push_back(s);
    }
    {
        // DDR5-4800B for the SN40L's 200 GB/s capacity tier: 6 DIMM channels of two 32-bit sub-channels each
        // (hardware-and-pnr.md 7.4), each sub-channel a channel here: BL16 moves 64 B in 8 tCK of 417
        // ps, 19.2 GB/s, 230 GB/s in all. 16 Gb x8 parts: 8 bank groups x 4 banks, a 4 KiB page per
        // sub-channel. JEDEC DDR5-4800B nominal timings (tCL/tRCD/tRP 16.7 ns, tRAS 32, tWR 30, tRTP 7.5,
        // tCCD_L 5, tRRD_L 5, tFAW 13.3, tWTR 2.5/10, tRFC1 295, tREFI 3900 ns) in tCK; Ramulator 2's DDR5
        // model for the rest.
        DramSpec s;
        s.name = "ddr5";
        s.family = DramFamily::Ddr;
        s.standard = "DDR5-4800B x8, 6 channels x 2 sub-channels, 1 rank";
        s.source = "organisation: hardware-and-pnr.md 7.4; timing: JEDEC DDR5-4800B nominal values in tCK, "
                   "structure as Ramulator 2 DDR5 (dam-step-perf-dram.md 3.8), derived";
        s.channels = 12;
        s.ranks = 1;
        s.bankGroups = 8;
        s.banks = 4;
        s.rows = 65536;
        s.columns = 64;
        s.busPerRank = false;
        s.tCKps = 417;
        s.mapping = MappingScheme::Mop4;
        s.t = {8, 40, 38, 40, 40, 40, 77, 117, 72, 18, 8, 12, 8, 12, 6, 24, 32, 708, 9360};
        v.push_back(s);
    }
    return v;
}

} // namespace

const ChoiceTable<DramPreset>& choices(DramPreset) {
    static const ChoiceTable<DramPreset> table{{"ddr4", DramPreset::Ddr4},
                                               {"ddr5", DramPreset::Ddr5},
                                               {"hbm2", DramPreset::Hbm2},
                                               {"hbm2e", DramPreset::Hbm2e}};
    return table;
}

const DramSpec& dramPreset(DramPreset preset) {
    static const std::vector<DramSpec> all = presets();
    for (const auto& s : all)
        if (s.name == nameOf(preset)) return s;
    throw std::logic_error("a DRAM preset without a spec");
}

const DramSpec& dramPreset(const std::string& name) {
    if (auto p = parseChoice(choices(DramPreset{}), name)) return dramPreset(*p);
    auto names = dramPresetNames();
    auto near = nearestWord(name, names);
    throw BadInput(
        fmt::format("memory preset '{}': {}{}", name,
                    expectedFound(fmt::format("one of {}", fmt::join(names, ", ")), "'" + name + "'"),
                    near ? "; did you mean '" + *near + "'?" : ""));
}

std::vector<std::string> dramPresetNames() {
    return choiceNames(choices(DramPreset{}));
}

} // namespace steprdu::hw::mem
