#pragma once
// Where the random-program generator's choices come from: a seeded engine (`steprdu difftest`, where a seed
// must mean the same program on every platform) or the bytes of a fuzzer's input (the structure-aware fuzz
// target, where the fuzzer's mutations of the bytes become mutations of the program).
#include <cstddef>
#include <cstdint>
#include <random>

namespace steprdu::tb {

class ChoiceSource {
  public:
    virtual ~ChoiceSource() = default;
    // A value in [0, n); n >= 1.
    virtual std::uint64_t below(std::uint64_t n) = 0;
};

// Modulo arithmetic on a 64-bit Mersenne twister: the same seed gives the same choices everywhere.
class SeededChoices : public ChoiceSource {
  public:
    explicit SeededChoices(std::uint64_t seed) : rng_(seed) {}
    std::uint64_t below(std::uint64_t n) override { return rng_() % n; }

  private:
    std::mt19937_64 rng_;
};

// Each choice consumes as few bytes as cover its range (one for up to 256 options), little end first; once
// the bytes run out every choice is 0, so a short input is still a whole program (the first option of
// everything).
class ByteChoices : public ChoiceSource {
  public:
    ByteChoices(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    std::uint64_t below(std::uint64_t n) override;
    std::size_t consumed() const { return pos_; }

  private:
    const std::uint8_t* data_;
    std::size_t size_, pos_ = 0;
};

} // namespace steprdu::tb
