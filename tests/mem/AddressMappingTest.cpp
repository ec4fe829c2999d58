// Address mappings place the fields as their names say, least significant last in the name.
#include <gtest/gtest.h>

#include "hw/mem/dram/AddressMapping.h"
#include "mem/MemTestUtil.h"
#include "util/Error.h"

using namespace steprdu;
using namespace steprdu::hw::mem;

namespace {

void expectFields(const DramAddress& a, int channel, int rank, int group, int bank, int row, int column) {
    EXPECT_EQ(a.channel, channel);
    EXPECT_EQ(a.rank, rank);
    EXPECT_EQ(a.bankGroup, group);
    EXPECT_EQ(a.bank, bank);
    EXPECT_EQ(a.row, row);
    EXPECT_EQ(a.column, column);
}

} // namespace

// hbm2 RoBaRaCoCh: 64 B transactions; 8 channels, 16 columns, 2 ranks, 4 groups, 2 banks, then rows.
TEST(AddressMapping, RoBaRaCoChInterleavesChannelsThenWalksARow) {
    const DramSpec& s = dramPreset("hbm2");
    AddressMapping m("RoBaRaCoCh", s);
    expectFields(m.decode(64), 1, 0, 0, 0, 0, 0);
    expectFields(m.decode(8 * 64), 0, 0, 0, 0, 0, 1);
    expectFields(m.decode(8 * 16 * 64), 0, 1, 0, 0, 0, 0);
    expectFields(m.decode(8 * 16 * 2 * 64), 0, 0, 1, 0, 0, 0);
    expectFields(m.decode(8 * 16 * 2 * 4 * 64), 0, 0, 0, 1, 0, 0);
    expectFields(m.decode(8 * 16 * 2 * 4 * 2 * 64), 0, 0, 0, 0, 1, 0);
    expectFields(m.decode(memtest::address(s, 5, 1, 3, 1, 777, 9)), 5, 1, 3, 1, 777, 9);
}

// ddr4 MOP4: 4 columns, then the bank group, bank and rank, then the other 32 columns (of 128), then rows.
// Permutation-based interleaving: the row (from bit 6 + 3 + 4 + 1 + 2 + 1 = 17 on hbm2) rotates the bank
// by row mod 2, the bank group by (row / 2) mod 4 and the rank by (row / 8) mod 2; the rest is RoBaRaCoCh.
TEST(AddressMapping, PermutationRotatesBanksByTheRow) {
    const DramSpec& s = dramPreset("hbm2");
    AddressMapping m("RoBaRaCoCh-perm", s);
    expectFields(m.decode(64), 1, 0, 0, 0, 0, 0);
    expectFields(m.decode(std::uint64_t(1) << 17), 0, 0, 0, 1, 1, 0);
    expectFields(m.decode(std::uint64_t(2) << 17), 0, 0, 1, 0, 2, 0);
    expectFields(m.decode(std::uint64_t(8) << 17), 0, 1, 0, 0, 8, 0);
    expectFields(m.decode((std::uint64_t(3) << 17) + 8 * 16 * 64), 0, 1, 1, 1, 3, 0); // rank 1 + 3 / 8 = 1
}

TEST(AddressMapping, Mop4SplitsTheColumn) {
    const DramSpec& s = dramPreset("ddr4");
    AddressMapping m("MOP4", s);
    expectFields(m.decode(3 * 64), 0, 0, 0, 0, 0, 3);
    expectFields(m.decode(4 * 64), 0, 0, 1, 0, 0, 0);
    expectFields(m.decode(4 * 4 * 64), 0, 0, 0, 1, 0, 0);
    expectFields(m.decode(4 * 4 * 4 * 64), 0, 0, 0, 0, 0, 4);
    expectFields(m.decode((4 * 4 * 4 * 32 + 4 * 4 * 4 + 1) * 64), 0, 0, 0, 0, 1, 5);
}

// Counts that are not powers of two use mixed-radix digits: 3 channels.
TEST(AddressMapping, MixedRadixAndUnknownNames) {
    DramSpec s = dramPreset("hbm2");
    s.channels = 3;
    AddressMapping m("RoBaRaCoCh", s);
    expectFields(m.decode(4 * 64), 1, 0, 0, 0, 0, 1);
    expectFields(m.decode(memtest::address(s, 2, 1, 2, 1, 12345, 15)), 2, 1, 2, 1, 12345, 15);
    EXPECT_THROW(AddressMapping("RoCoBa", s), BadInput);
}

// locate() is decode() without the column, with the bank numbered flat: the same answer on every preset and
// mapping, shifts-and-masks or mixed radix.
TEST(AddressMapping, LocateAgreesWithDecode) {
    for (const char* preset : {"hbm2", "hbm2e", "ddr4", "ddr5"})
        for (const auto& name : AddressMapping::names()) {
            const DramSpec& s = dramPreset(preset);
            const AddressMapping m(name, s);
            std::uint64_t address = 0;
            for (int i = 0; i < 4096;
                 ++i, address = address * 6364136223846793005ULL + 1442695040888963407ULL) {
                const std::uint64_t a = (address >> 8) / s.transactionBytes * s.transactionBytes;
                const DramAddress d = m.decode(a);
                const DramLocation l = m.locate(a);
                ASSERT_EQ(l.channel, d.channel) << preset << " " << name << " " << a;
                ASSERT_EQ(l.bank, (d.rank * s.bankGroups + d.bankGroup) * s.banks + d.bank)
                    << preset << " " << name;
                ASSERT_EQ(l.row, d.row) << preset << " " << name << " " << a;
            }
        }
}
