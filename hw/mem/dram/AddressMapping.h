#pragma once
// Where a physical address lands in a DRAM: its channel, rank (pseudo-channel), bank group, bank, row and
// column. The address is first divided by the transaction size; the fields then take their places from the
// least significant end in the mapping's order, as mixed-radix digits (so counts need not be powers of two).
//   RoBaRaCoCh  channel, column, rank, bank group, bank, row  (Ramulator 2's default; consecutive
//               transactions interleave over channels, then walk a row)
//   ChRaBaRoCo  column, row, bank, bank group, rank, channel   (a row, then the next row of the same bank)
//   RoBaRaCoCh-perm  RoBaRaCoCh with permutation-based page interleaving (Zhang, Zhu and Zhang, MICRO
//               2000): the row's low digits rotate the bank, bank group and rank, so tensors whose bases
//               differ by whole rows, streamed in step, start in different banks instead of conflicting
//   MOP4        channel, 4 columns, bank group, bank, rank, the other columns, row (Ramulator 2's MOP4CLXOR
//               without its XOR: four transactions per bank group, then the next one)
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "hw/mem/dram/DramSpec.h"

namespace steprdu::hw::mem {

struct DramAddress {
    int channel = 0, rank = 0, bankGroup = 0, bank = 0, row = 0, column = 0;
};

// Where a transaction goes: its channel, its bank numbered flat within the channel (DramSpec::flatBank), and
// its row.
struct DramLocation {
    int channel = 0, bank = 0, row = 0;
};

class AddressMapping {
  public:
    AddressMapping(MappingScheme scheme, const DramSpec& spec);
    // Throws BadInput naming `name` and the known mappings.
    AddressMapping(const std::string& name, const DramSpec& spec);
    // The scheme `name` names; throws BadInput naming the known ones.
    static MappingScheme parse(const std::string& name);
    DramAddress decode(std::uint64_t address) const {
        DramAddress a = decodeFields(address);
        const int banks = spec_.banks, groups = spec_.bankGroups;
        if (permute_) {
            a.bank = (a.bank + a.row) % banks;
            a.bankGroup = (a.bankGroup + a.row / banks) % groups;
            a.rank = (a.rank + a.row / (banks * groups)) % spec_.ranks;
        } else if (hash_) {
            const int flat = hashedBank(a);
            a.bank = flat % banks;
            a.bankGroup = flat / banks % groups;
            a.rank = flat / (banks * groups);
        }
        return a;
    }
    // decode() without the column, for every transaction the memory system makes.
    DramLocation locate(std::uint64_t address) const {
        if (plain_) {
            const std::uint64_t x = address >> transactionShift_;
            auto field = [&](Field f) {
                const Bits& b = bits_[static_cast<int>(f)];
                return static_cast<int>((x >> b.shift) & b.mask);
            };
            return {field(Field::Channel),
                    spec_.flatBank(field(Field::Rank), field(Field::BankGroup), field(Field::Bank)),
                    field(Field::Row)};
        }
        if (hash_) { // the flat bank as it comes, not split into fields and joined again
            const DramAddress a = decodeFields(address);
            return {a.channel, hashedBank(a), a.row};
        }
        const DramAddress a = decode(address);
        return {a.channel, spec_.flatBank(a.rank, a.bankGroup, a.bank), a.row};
    }
    const std::string& name() const { return nameOf(scheme_); }
    static std::vector<std::string> names();

  private:
    enum class Field { Channel, Rank, BankGroup, Bank, Row, Column, ColumnLow, ColumnHigh };
    DramAddress decodeFields(std::uint64_t address) const;
    // The hashed mappings' flat bank: every row rotates the channel's banks by its own multiplicative hash,
    // a bijection within the row, so rows far apart (tensors at power-of-two offsets) land in unrelated
    // banks. Both terms are below the channel's bank count, so one subtraction wraps their sum.
    int hashedBank(const DramAddress& a) const {
        const std::uint32_t mixed = (std::uint32_t(a.row) * 0x9e3779b1u) >> 16;
        const int h = static_cast<int>(bankMask_ ? mixed & bankMask_ : mixed % std::uint32_t(banks_));
        const int flat = spec_.flatBank(a.rank, a.bankGroup, a.bank) + h;
        return flat >= banks_ ? flat - banks_ : flat;
    }
    int radix(Field f) const;
    static int DramAddress::*member(Field f);

    // A field's mixed-radix digit, least significant first: it adds digit x scale to one member of
    // DramAddress (the two halves of MOP4's column share one).
    struct Digit {
        int DramAddress::*member;
        int radix, scale;
    };

    MappingScheme scheme_;
    const DramSpec& spec_;
    std::vector<Digit> digits_;
    // When every radix is a power of two: each field's bit position and mask (mask 0: not in this mapping),
    // indexed by Field, so decoding is a few shifts.
    struct Bits {
        int shift = 0;
        std::uint64_t mask = 0;
    };
    std::array<Bits, 8> bits_{};
    int columnLowBits_ = 0;
    bool permute_ = false; // RoBaRaCoCh-perm
    bool hash_ = false;    // <mapping>-hash
    int transactionShift_ = -1;
    bool plain_ = false;         // shifts and masks, no rotation of banks
    int banks_ = 1;              // per channel
    std::uint32_t bankMask_ = 0; // banks_ - 1 when a power of two, else 0
};

} // namespace steprdu::hw::mem
