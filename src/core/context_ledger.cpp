// SPDX-License-Identifier: MIT
#include "core/context_ledger.hpp"

#include <bit>

namespace ndksim::core {
namespace {

constexpr std::size_t k_initial_ring = 16;
constexpr std::size_t k_initial_counts = 32;

}  // namespace

context_ledger::earlier context_ledger::outstanding(const void* context) const noexcept {
    if (find(context) != counts_.size()) {
        for (std::size_t i = 0; i < used_; ++i) {
            if (at(i).context == context) {
                return earlier{at(i).call, at(i).silent};
            }
        }
    }
    return earlier{nullptr, false};
}

void context_ledger::post(const void* context, const char* call, bool silent) {
    if (used_ == ring_.size()) {
        grow_ring();
    }
    count_up(context);
    at(used_) = entry{context, call, silent};
    ++used_;
    ++live_;
}

void context_ledger::refused(const void* context) noexcept {
    for (std::size_t i = used_; i-- > 0;) {
        if (at(i).context == context) {
            retire(at(i));
            break;
        }
    }
    trim();
}

void context_ledger::retrieved(const void* context) noexcept {
    if (find(context) == counts_.size()) {
        return;
    }
    std::size_t match = 0;
    while (at(match).context != context) {
        ++match;
    }
    for (std::size_t i = 0; i < match; ++i) {
        if (at(i).context != nullptr && at(i).silent) {
            retire(at(i));
        }
    }
    retire(at(match));
    trim();
}

void context_ledger::retire(entry& e) noexcept {
    count_down(e.context);
    e.context = nullptr;
    --live_;
}

// Drops retired entries from both ends, so the ring holds only what lies between the oldest
// and the newest outstanding request.
void context_ledger::trim() noexcept {
    while (used_ > 0 && at(0).context == nullptr) {
        head_ = (head_ + 1) & (ring_.size() - 1);
        --used_;
    }
    while (used_ > 0 && at(used_ - 1).context == nullptr) {
        --used_;
    }
}

void context_ledger::grow_ring() {
    std::vector<entry> bigger(ring_.empty() ? k_initial_ring : ring_.size() * 2);
    for (std::size_t i = 0; i < used_; ++i) {
        bigger[i] = at(i);
    }
    ring_ = std::move(bigger);
    head_ = 0;
}

// Fibonacci hashing of the pointer: its low bits are alignment, its high bits mostly equal.
std::size_t context_ledger::home(const void* context) const noexcept {
    const auto h = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(context)) *
                   0x9E3779B97F4A7C15ULL;
    return static_cast<std::size_t>(h >> 32) & (counts_.size() - 1);
}

std::size_t context_ledger::find(const void* context) const noexcept {
    if (counts_.empty()) {
        return 0;
    }
    const std::size_t mask = counts_.size() - 1;
    for (std::size_t i = home(context);; i = (i + 1) & mask) {
        if (counts_[i].context == context) {
            return i;
        }
        if (counts_[i].context == nullptr) {
            return counts_.size();
        }
    }
}

void context_ledger::count_up(const void* context) {
    const std::size_t slot = find(context);
    if (slot != counts_.size()) {
        ++counts_[slot].count;
        return;
    }
    // At most half full, so every probe ends at a free slot.
    if ((keys_ + 1) * 2 > counts_.size()) {
        grow_counts();
    }
    const std::size_t mask = counts_.size() - 1;
    std::size_t i = home(context);
    while (counts_[i].context != nullptr) {
        i = (i + 1) & mask;
    }
    counts_[i] = counted{context, 1};
    ++keys_;
}

void context_ledger::count_down(const void* context) noexcept {
    std::size_t hole = find(context);
    if (hole == counts_.size() || --counts_[hole].count > 0) {
        return;
    }
    // Backward-shift deletion: move up every later entry of the probe run whose home does not
    // lie cyclically in (hole, j], so no lookup meets the free slot before its key.
    const std::size_t mask = counts_.size() - 1;
    for (std::size_t j = (hole + 1) & mask; counts_[j].context != nullptr; j = (j + 1) & mask) {
        const std::size_t k = home(counts_[j].context);
        const bool stays = hole <= j ? (hole < k && k <= j) : (hole < k || k <= j);
        if (!stays) {
            counts_[hole] = counts_[j];
            hole = j;
        }
    }
    counts_[hole] = counted{nullptr, 0};
    --keys_;
}

void context_ledger::grow_counts() {
    std::vector<counted> old(counts_.empty() ? k_initial_counts : counts_.size() * 2);
    old.swap(counts_);
    const std::size_t mask = counts_.size() - 1;
    for (const counted& c : old) {
        if (c.context != nullptr) {
            std::size_t i = home(c.context);
            while (counts_[i].context != nullptr) {
                i = (i + 1) & mask;
            }
            counts_[i] = c;
        }
    }
    static_assert(std::has_single_bit(k_initial_counts) && std::has_single_bit(k_initial_ring));
}

}  // namespace ndksim::core
