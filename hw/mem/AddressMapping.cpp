#include "hw/mem/AddressMapping.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/Error.h"

namespace steprdu::hw::mem {

namespace {
constexpr int kMopColumns = 4;
}

std::vector<std::string> AddressMapping::names() {
    return {"RoBaRaCoCh", "ChRaBaRoCo", "MOP4"};
}

AddressMapping::AddressMapping(const std::string& name, const DramSpec& spec) : name_(name), spec_(spec) {
    using F = Field;
    if (name == "RoBaRaCoCh")
        order_ = {F::Channel, F::Column, F::Rank, F::BankGroup, F::Bank, F::Row};
    else if (name == "ChRaBaRoCo")
        order_ = {F::Column, F::Row, F::Bank, F::BankGroup, F::Rank, F::Channel};
    else if (name == "MOP4")
        order_ = {F::Channel, F::ColumnLow, F::BankGroup, F::Bank, F::Rank, F::ColumnHigh, F::Row};
    else
        throw BadInput(
            fmt::format("address mapping: {}",
                        expectedFound(fmt::format("one of {}", fmt::join(names(), ", ")), "'" + name + "'")));
    auto log2 = [](long long v) {
        int b = 0;
        while ((1LL << b) < v)
            ++b;
        return (1LL << b) == v ? b : -1;
    };
    int bits = 0;
    bool pow2 = log2(spec_.transactionBytes) >= 0;
    for (Field f : order_) {
        radix_.push_back(radix(f));
        shift_.push_back(bits);
        int b = log2(radix(f));
        pow2 = pow2 && b >= 0;
        bits += std::max(b, 0);
    }
    shift_.push_back(bits);
    if (pow2 && bits < 64) transactionShift_ = log2(spec_.transactionBytes);
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

DramAddress AddressMapping::decode(std::uint64_t address) const {
    const bool pow2 = transactionShift_ >= 0;
    std::uint64_t x = pow2 ? address >> transactionShift_ : address / spec_.transactionBytes;
    DramAddress a;
    int columnLow = 0;
    for (std::size_t i = 0; i < order_.size(); ++i) {
        int d;
        if (pow2) { // shifts and masks
            d = static_cast<int>((x >> shift_[i]) & ((std::uint64_t(1) << (shift_[i + 1] - shift_[i])) - 1));
        } else { // mixed radix; addresses beyond the capacity wrap around in the row
            d = static_cast<int>(x % radix_[i]);
            x /= radix_[i];
        }
        switch (order_[i]) {
        case Field::Channel:
            a.channel = d;
            break;
        case Field::Rank:
            a.rank = d;
            break;
        case Field::BankGroup:
            a.bankGroup = d;
            break;
        case Field::Bank:
            a.bank = d;
            break;
        case Field::Row:
            a.row = d;
            break;
        case Field::Column:
            a.column = d;
            break;
        case Field::ColumnLow:
            columnLow = d;
            break;
        case Field::ColumnHigh:
            a.column = d * radix(Field::ColumnLow) + columnLow;
            break;
        }
    }
    return a;
}

} // namespace steprdu::hw::mem
