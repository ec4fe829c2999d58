#pragma once
// The exact ratio between the fabric clock and a DRAM command clock: DRAM cycles per fabric cycle as a
// reduced fraction num/den, from the fabric frequency (kHz resolution) and tCK (femtosecond resolution), so
// conversions never drift over long runs (DAM's rational cycles-per-tick bridge).
#include <cmath>
#include <cstdint>
#include <numeric>

namespace steprdu::hw::mem {

struct ClockRatio {
    std::int64_t num = 1, den = 1; // DRAM cycles per fabric cycle

    static ClockRatio of(double fabricGhz, double tCKps) {
        const std::int64_t fabricKHz = std::llround(fabricGhz * 1e6), tCKfs = std::llround(tCKps * 1000);
        // Tfabric / tCK = (1e12 / fabricKHz) fs / tCKfs.
        std::int64_t n = 1000000000000LL, d = fabricKHz * tCKfs;
        std::int64_t g = std::gcd(n, d);
        return {n / g, d / g};
    }
    // The first DRAM cycle that starts at or after fabric cycle `f`.
    std::int64_t toDram(std::int64_t f) const { return ceilDiv(f, num, den); }
    // The first fabric cycle that starts at or after DRAM cycle `d`.
    std::int64_t toFabric(std::int64_t d) const { return ceilDiv(d, den, num); }
    // The last fabric cycle that starts at or before DRAM cycle `d`.
    std::int64_t fabricFloor(std::int64_t d) const {
        return static_cast<std::int64_t>(static_cast<__int128>(d) * den / num);
    }

  private:
    static std::int64_t ceilDiv(std::int64_t x, std::int64_t mul, std::int64_t div) {
        if (mul == div) return x;
        if (x >= 0 && x < (std::int64_t(1) << 31) && mul < (std::int64_t(1) << 31)) // no overflow in 64 bits
            return (x * mul + div - 1) / div;
        __int128 p = static_cast<__int128>(x) * mul;
        return static_cast<std::int64_t>((p + div - 1) / div);
    }
};

} // namespace steprdu::hw::mem
