#include "hw/mem/dram/AddressMapping.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/Error.h"

namespace steprdu::hw::mem {

namespace {
constexpr int kMopColumns = 4;
}

const ChoiceTable<MappingScheme>& choices(MappingScheme) {
    using M = MappingScheme;
    static const ChoiceTable<MappingScheme> table{{"RoBaRaCoCh", M::RoBaRaCoCh},
                                                  {"RoBaRaCoCh-perm", M::RoBaRaCoChPerm},
                                                  {"RoBaRaCoCh-hash", M::RoBaRaCoChHash},
                                                  {"ChRaBaRoCo", M::ChRaBaRoCo},
                                                  {"MOP4", M::Mop4},
                                                  {"MOP4-hash", M::Mop4Hash}};
    return table;
}

std::vector<std::string> AddressMapping::names() {
    return choiceNames(choices(MappingScheme{}));
}

MappingScheme AddressMapping::parse(const std::string& name) {
    if (auto m = parseChoice(choices(MappingScheme{}), name)) return *m;
    throw BadInput(
        fmt::format("address mapping: {}",
                    expectedFound(fmt::format("one of {}", fmt::join(names(), ", ")), "'" + name + "'")));
}

AddressMapping::AddressMapping(const std::string& name, const DramSpec& spec)
    : AddressMapping(parse(name), spec) {}

AddressMapping::AddressMapping(MappingScheme scheme, const DramSpec& spec) : scheme_(scheme), spec_(spec) {
    using F = Field;
    using M = MappingScheme;
    std::vector<Field> order; // least significant first
    permute_ = scheme == M::RoBaRaCoChPerm;
    hash_ = scheme == M::RoBaRaCoChHash || scheme == M::Mop4Hash;
    switch (scheme) {
    case M::RoBaRaCoCh:
    case M::RoBaRaCoChPerm:
    case M::RoBaRaCoChHash:
        order = {F::Channel, F::Column, F::Rank, F::BankGroup, F::Bank, F::Row};
        break;
    case M::ChRaBaRoCo:
        order = {F::Column, F::Row, F::Bank, F::BankGroup, F::Rank, F::Channel};
        break;
    case M::Mop4:
    case M::Mop4Hash:
        order = {F::Channel, F::ColumnLow, F::BankGroup, F::Bank, F::Rank, F::ColumnHigh, F::Row};
        break;
    }
    auto log2 = [](long long v) {
        int b = 0;
        while ((1LL << b) < v)
            ++b;
        return (1LL << b) == v ? b : -1;
    };
    int bits = 0;
    bool pow2 = log2(spec_.transactionBytes) >= 0;
    for (Field f : order) {
        const int b = log2(radix(f));
        pow2 = pow2 && b >= 0;
        bits_[static_cast<int>(f)] = {bits, b >= 0 ? (std::uint64_t(1) << b) - 1 : 0};
        bits += std::max(b, 0);
        digits_.push_back({member(f), radix(f), f == F::ColumnHigh ? radix(F::ColumnLow) : 1});
    }
    columnLowBits_ = std::max(log2(radix(F::ColumnLow)), 0);
    if (pow2 && bits < 64) transactionShift_ = log2(spec_.transactionBytes);
    plain_ = transactionShift_ >= 0 && !permute_ && !hash_;
    banks_ = spec_.ranks * spec_.bankGroups * spec_.banks;
    if (log2(banks_) >= 0) bankMask_ = static_cast<std::uint32_t>(banks_ - 1);
}

int DramAddress::*AddressMapping::member(Field f) {
    switch (f) {
    case Field::Channel:
        return &DramAddress::channel;
    case Field::Rank:
        return &DramAddress::rank;
    case Field::BankGroup:
        return &DramAddress::bankGroup;
    case Field::Bank:
        return &DramAddress::bank;
    case Field::Row:
        return &DramAddress::row;
    default:
        return &DramAddress::column;
    }
}

int AddressMapping::radix(Field f) const {
    const int low = std::min(kMopColumns, spec_.columns);
    switch (f) {
    case Field::Channel:
        return spec_.channels;
    case Field::Rank:
        return spec_.ranks;
    case Field::BankGroup:
        return spec_.bankGroups;
    case Field::Bank:
        return spec_.banks;
    case Field::Row:
        return spec_.rows;
    case Field::Column:
        return spec_.columns;
    case Field::ColumnLow:
        return low;
    case Field::ColumnHigh:
        return spec_.columns / low;
    }
    return 1;
}

DramAddress AddressMapping::decodeFields(std::uint64_t address) const {
    DramAddress a;
    if (transactionShift_ >= 0) { // shifts and masks
        const std::uint64_t x = address >> transactionShift_;
        auto field = [&](Field f) {
            const Bits& b = bits_[static_cast<int>(f)];
            return static_cast<int>((x >> b.shift) & b.mask);
        };
        a.channel = field(Field::Channel);
        a.rank = field(Field::Rank);
        a.bankGroup = field(Field::BankGroup);
        a.bank = field(Field::Bank);
        a.row = field(Field::Row);
        a.column =
            field(Field::Column) + field(Field::ColumnLow) + (field(Field::ColumnHigh) << columnLowBits_);
        return a;
    }
    // Mixed radix; addresses beyond the capacity wrap around in the row.
    std::uint64_t x = address / spec_.transactionBytes;
    for (const Digit& d : digits_) {
        a.*d.member += static_cast<int>(x % d.radix) * d.scale;
        x /= d.radix;
    }
    return a;
}

} // namespace steprdu::hw::mem
