#include "hw/mem/step_node/RequestWindow.h"

#include <algorithm>

namespace steprdu::hw::mem {

void RequestWindow::compact() const {
    std::vector<std::int64_t> kept;
    for (std::size_t i = head_; i < log_.size(); ++i)
        if (log_[i] > released_) kept.push_back(log_[i]);
    log_.clear();
    blockLast_.clear();
    head_ = 0;
    // Near the cap every packet would count them again: count per cycle from here on.
    if (2 * static_cast<std::int64_t>(kept.size()) > cap_) {
        for (std::int64_t t : kept)
            calendar_.add(t);
        log_.shrink_to_fit();
        blockLast_.shrink_to_fit();
        counted_ = true;
        nextDrop_ = kNeverDrop;
        return;
    }
    for (std::size_t i = kBlock; i <= kept.size(); i += kBlock)
        blockLast_.push_back(*std::max_element(kept.begin() + static_cast<std::ptrdiff_t>(i - kBlock),
                                               kept.begin() + static_cast<std::ptrdiff_t>(i)));
    log_ = std::move(kept);
    setNextDrop();
}

void RequestWindow::closeBlock() {
    blockLast_.push_back(*std::max_element(log_.end() - kBlock, log_.end()));
    if (blockLast_.size() == head_ / kBlock + 1) nextDrop_ = blockLast_.back();
}

void RequestWindow::dropBlocks() {
    while (head_ / kBlock < blockLast_.size() && blockLast_[head_ / kBlock] <= released_)
        head_ += kBlock;
    if (head_ >= 16 * kBlock && 2 * head_ >= log_.size()) { // free the dropped part
        log_.erase(log_.begin(), log_.begin() + static_cast<std::ptrdiff_t>(head_));
        blockLast_.erase(blockLast_.begin(),
                         blockLast_.begin() + static_cast<std::ptrdiff_t>(head_ / kBlock));
        head_ = 0;
    }
    setNextDrop();
}

bool RequestWindow::countedAllows(int count) const {
    if (!counted_) compact();                       // the bound is now the slots in use
    return bound() == 0 || bound() + count <= cap_; // a packet wider than the window goes alone
}

std::int64_t RequestWindow::earliest() const {
    if (counted_) return calendar_.earliest();
    return *std::min_element(log_.begin() + static_cast<std::ptrdiff_t>(head_), log_.end());
}

} // namespace steprdu::hw::mem
