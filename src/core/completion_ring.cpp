// SPDX-License-Identifier: MIT
#include "core/completion_ring.hpp"

namespace ndksim::core {

completion_ring::completion_ring(std::uint32_t capacity)
    : slots_(std::make_unique_for_overwrite<completion[]>(capacity)), capacity_(capacity) {}

bool completion_ring::push(const completion& c) noexcept {
    if (size_ == capacity_) {
        return false;
    }
    std::uint32_t tail = head_ + size_;
    if (tail >= capacity_) {
        tail -= capacity_;
    }
    slots_[tail] = c;
    ++size_;
    return true;
}

void completion_ring::pop() noexcept {
    if (++head_ == capacity_) {
        head_ = 0;
    }
    --size_;
}

void completion_ring::take_all(completion_ring& from) noexcept {
    while (!from.empty()) {
        push(from.front());
        from.pop();
    }
}

}  // namespace ndksim::core
