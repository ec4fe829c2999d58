#pragma once
// Where a physical address lands in a DRAM: its channel, rank (pseudo-channel), bank group, bank, row and
// column. The address is first divided by the transaction size; the fields then take their places from the
// least significant end in the mapping's order, as mixed-radix digits (so counts need not be powers of two).
//   RoBaRaCoCh  channel, column, rank, bank group, bank, row  (Ramulator 2's default; consecutive
//               transactions interleave over channels, then walk a row)
//   ChRaBaRoCo  column, row, bank, bank group, rank, channel   (a row, then the next row of the same bank)
//   MOP4        channel, 4 columns, bank group, bank, rank, the other columns, row (Ramulator 2's MOP4CLXOR
//               without its XOR: four transactions per bank group, then the next one)
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "hw/mem/DramSpec.h"

namespace steprdu::hw::mem {

struct DramAddress {
    int channel = 0, rank = 0, bankGroup = 0, bank = 0, row = 0, column = 0;
};

class AddressMapping {
  public:
    // Throws BadInput naming `name` and the known mappings.
    AddressMapping(const std::string& name, const DramSpec& spec);
    DramAddress decode(std::uint64_t address) const;
    const std::string& name() const { return name_; }
    static std::vector<std::string> names();

  private:
    enum class Field { Channel, Rank, BankGroup, Bank, Row, Column, ColumnLow, ColumnHigh };
    int radix(Field f) const;
    static int DramAddress::*member(Field f);

    // A field's mixed-radix digit, least significant first: it adds digit x scale to one member of
    // DramAddress (the two halves of MOP4's column share one).
    struct Digit {
        int DramAddress::*member;
        int radix, scale;
    };

    std::string name_;
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
    int transactionShift_ = -1;
};

} // namespace steprdu::hw::mem
