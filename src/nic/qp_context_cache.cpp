// SPDX-License-Identifier: MIT
#include "nic/qp_context_cache.hpp"

#include <algorithm>

#include "util/single_writer.hpp"

namespace ndksim::nic {

qp_context_cache::qp_context_cache(std::uint32_t entries, std::uint32_t qp_numbers)
    : slots_(std::min(entries, qp_numbers)), slot_of_(qp_numbers, k_none) {}

void qp_context_cache::unlink(std::uint32_t s) noexcept {
    slot& n = slots_[s];
    if (n.newer != k_none) {
        slots_[n.newer].older = n.older;
    } else {
        head_ = n.older;
    }
    if (n.older != k_none) {
        slots_[n.older].newer = n.newer;
    } else {
        tail_ = n.newer;
    }
    n.newer = k_none;
    n.older = k_none;
}

void qp_context_cache::push_front(std::uint32_t s) noexcept {
    slot& n = slots_[s];
    n.newer = k_none;
    n.older = head_;
    if (head_ != k_none) {
        slots_[head_].newer = s;
    }
    head_ = s;
    if (tail_ == k_none) {
        tail_ = s;
    }
}

bool qp_context_cache::touch(std::uint32_t qpn) noexcept {
    if (qpn >= slot_of_.size() || slots_.empty()) {
        util::single_writer_add(misses_);
        return false;
    }
    if (const std::uint32_t s = slot_of_[qpn]; s != k_none) {
        if (s != head_) {
            unlink(s);
            push_front(s);
        }
        util::single_writer_add(hits_);
        return true;
    }
    std::uint32_t s = 0;
    if (used_ < slots_.size()) {
        s = used_++;
    } else {
        s = tail_;
        unlink(s);
        slot_of_[slots_[s].qpn] = k_none;
    }
    slots_[s].qpn = qpn;
    slot_of_[qpn] = s;
    push_front(s);
    util::single_writer_add(misses_);
    return false;
}

}  // namespace ndksim::nic
