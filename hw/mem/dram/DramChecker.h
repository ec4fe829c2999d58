#pragma once
// Checks every command a controller issues against the preset's timing rules, from the history of the
// commands themselves: a second, independent statement of the rules that DramChannel enforces by forward
// bookkeeping. Used by the tests (and by `memory.check_timing`) to prove a run free of violations.
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "hw/mem/dram/DramChannel.h"

namespace steprdu::hw::mem {

class DramChecker {
  public:
    explicit DramChecker(const DramSpec& spec);
    // Checks command `c` at cycle `t` against everything seen so far, then records it. `row` is the row an
    // ACT opens or a RD/WR addresses.
    void check(DramCommand c, int rank, int bankGroup, int bank, int row, std::int64_t t);
    std::int64_t commands() const { return commands_; }
    std::int64_t violationCount() const { return violations_; }
    // The first few violations, described.
    const std::vector<std::string>& examples() const { return examples_; }

  private:
    static constexpr std::int64_t kLongAgo = -(std::int64_t(1) << 40);
    struct Last {
        std::int64_t act = kLongAgo, pre = kLongAgo, rd = kLongAgo, wr = kLongAgo;
    };
    void require(bool ok, std::int64_t t, DramCommand c, const std::string& rule);
    void after(std::int64_t t, std::int64_t since, int gap, DramCommand c, const char* what);

    const DramSpec& spec_;
    std::vector<Last> banks_, groups_, ranks_;
    std::vector<int> open_;
    std::vector<std::int64_t> refs_;
    std::vector<std::deque<std::int64_t>> acts_;
    std::int64_t lastCommand_ = kLongAgo;
    std::int64_t commands_ = 0, violations_ = 0;
    std::vector<std::string> examples_;
};

} // namespace steprdu::hw::mem
