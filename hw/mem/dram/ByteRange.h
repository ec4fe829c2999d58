#pragma once
#include <cstdint>

namespace steprdu::hw::mem {

// Bytes [address, address + bytes) of one memory tier's address space.
struct ByteRange {
    std::uint64_t address = 0;
    std::int64_t bytes = 0;
};

} // namespace steprdu::hw::mem
