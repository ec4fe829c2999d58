#include "testbenches/ChoiceSource.h"

namespace steprdu::tb {

std::uint64_t ByteChoices::below(std::uint64_t n) {
    if (n <= 1) return 0;
    std::uint64_t v = 0;
    int shift = 0;
    for (std::uint64_t range = n - 1; range > 0 && pos_ < size_; range >>= 8, shift += 8)
        v |= std::uint64_t(data_[pos_++]) << shift;
    return v % n;
}

} // namespace steprdu::tb
