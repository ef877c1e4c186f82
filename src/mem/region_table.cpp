// SPDX-License-Identifier: MIT
#include "mem/region_table.hpp"

#include <algorithm>
#include <new>

namespace ndksim::mem {

region_table::region_table(std::uint32_t capacity)
    : capacity_(std::min(capacity, token_index_limit - 1)), slots_(1) {
    view_.store(slots_.data(), std::memory_order_relaxed);
    view_extent_.store(1, std::memory_order_relaxed);
}

std::uint32_t region_table::allocate(slot_kind kind) noexcept {
    if (live_ == capacity_) {
        return 0;
    }
    std::uint32_t index = free_head_;
    if (index != 0) {
        free_head_ = slots_[index].next_free;
        if (free_head_ == 0) {
            free_tail_ = 0;
        }
    } else {
        try {
            slots_.emplace_back();
        } catch (const std::bad_alloc&) {
            return 0;
        }
        index = static_cast<std::uint32_t>(slots_.size() - 1);
        // Published for prefetch(): a reader that pairs the old base with the new size only
        // gets a useless hint.
        view_.store(slots_.data(), std::memory_order_relaxed);
        view_extent_.store(static_cast<std::uint32_t>(slots_.size()), std::memory_order_relaxed);
    }
    slot& s = slots_[index];
    s.kind = kind;
    s.key = next_key(s.issued_key);
    s.issued_key = s.key;
    s.next_free = 0;
    ++live_;
    return index;
}

void region_table::release(std::uint32_t index) noexcept {
    slot& s = slots_[index];
    s.kind = slot_kind::free;
    s.pd = pd_id::none;
    s.reg = region{};
    s.win = window{};
    s.next_free = 0;
    if (free_tail_ == 0) {
        free_head_ = index;
    } else {
        slots_[free_tail_].next_free = index;
    }
    free_tail_ = index;
    --live_;
}

slot* region_table::find(std::uint32_t index) noexcept {
    if (index == 0 || index >= slots_.size() || slots_[index].kind == slot_kind::free) {
        return nullptr;
    }
    return &slots_[index];
}

const slot* region_table::find(std::uint32_t index) const noexcept {
    if (index == 0 || index >= slots_.size() || slots_[index].kind == slot_kind::free) {
        return nullptr;
    }
    return &slots_[index];
}

slot* region_table::find(std::uint32_t index, slot_kind kind) noexcept {
    slot* s = find(index);
    return s != nullptr && s->kind == kind ? s : nullptr;
}

const slot* region_table::find(std::uint32_t index, slot_kind kind) const noexcept {
    const slot* s = find(index);
    return s != nullptr && s->kind == kind ? s : nullptr;
}

std::uint32_t region_table::active_token(std::uint32_t index) const noexcept {
    return make_token(index, slots_[index].key);
}

std::uint32_t region_table::issued_token(std::uint32_t index) const noexcept {
    return make_token(index, slots_[index].issued_key);
}

}  // namespace ndksim::mem
