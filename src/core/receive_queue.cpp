// SPDX-License-Identifier: MIT
#include "core/receive_queue.hpp"

#include "util/refusal.hpp"

#include <new>
#include <type_traits>

namespace ndksim::core {

static_assert(std::is_trivially_copyable_v<sge>, "SGEs are copied bytewise");

receive_queue::receive_queue(std::uint32_t depth, std::uint32_t max_sge)
    : max_sge_(max_sge), depth_(depth), capacity_(depth) {
    chunks_.push_back(std::make_unique<sge[]>(std::size_t{depth} * max_sge));
    slots_.resize(depth);
    ring_.resize(depth);
    free_.resize(depth);
    for (std::uint32_t i = 0; i < depth; ++i) {
        slots_[i] = {nullptr, 0, chunks_.back().get() + std::size_t{i} * max_sge};
        free_[i] = depth - 1 - i;  // slot 0 on top of the stack
    }
}

status receive_queue::post(void* context, const sge* sges, std::uint32_t count) noexcept {
    // Rule 11: the SGE count is bounded by the queue's MaxReceiveRequestSge.
    if (sges == nullptr && count != 0) {
        refusal::because("nSge is not 0 but the SGE array is NULL");
        return status::invalid_parameter;
    }
    if (count > max_sge_) {
        refusal::because(verifier::rule::sge_count,
                         "rule 11: nSge above the queue's MaxReceiveRequestSge");
        return status::invalid_parameter;
    }
    const util::access_gate::hold in(gate_, util::access_gate::side::other);
    if (size_ + held_ >= depth_) {
        refusal::because(verifier::rule::queue_depth,
                         "rule 11: the receive queue is full (its depth was set at creation)");
        return status::insufficient_resources;
    }
    const std::uint32_t slot = free_.back();
    free_.pop_back();
    slot_entry& s = slots_[slot];
    s.context = context;
    s.count = count;
    // Entry by entry, as a send's SGEs are copied (nic/post.cpp): a call to memcpy for these
    // few bytes stalled on every post.
    for (std::uint32_t i = 0; i < count; ++i) {
        s.sges[i] = sges[i];
    }
    std::uint32_t tail = head_ + size_;
    if (tail >= capacity_) {
        tail -= capacity_;
    }
    ring_[tail] = slot;
    ++size_;
    return status::success;
}

void receive_queue::fill(received& out, std::uint32_t slot) const noexcept {
    const slot_entry& s = slots_[slot];
    out.context = s.context;
    out.sges = std::span<const sge>(s.sges, s.count);
    out.slot = slot;
}

std::uint32_t receive_queue::pop_inside() noexcept {
    const std::uint32_t slot = ring_[head_];
    if (++head_ == capacity_) {
        head_ = 0;
    }
    --size_;
    return slot;
}

bool receive_queue::front(received& out) const noexcept {
    const util::access_gate::hold in(gate_, util::access_gate::side::reader);
    if (size_ == 0) {
        return false;
    }
    fill(out, ring_[head_]);
    return true;
}

void receive_queue::pop() noexcept {
    const util::access_gate::hold in(gate_, util::access_gate::side::reader);
    free_.push_back(pop_inside());
}

bool receive_queue::take(received& out) noexcept {
    const util::access_gate::hold in(gate_, util::access_gate::side::reader);
    if (size_ == 0) {
        return false;
    }
    fill(out, pop_inside());
    ++held_;
    return true;
}

void receive_queue::release(std::uint32_t slot) noexcept {
    const util::access_gate::hold in(gate_, util::access_gate::side::reader);
    free_.push_back(slot);
    --held_;
}

std::uint32_t receive_queue::size() const noexcept {
    const util::access_gate::hold in(gate_, util::access_gate::side::reader);
    return size_;
}

std::uint32_t receive_queue::outstanding() const noexcept {
    const util::access_gate::hold in(gate_, util::access_gate::side::reader);
    return size_ + held_;
}

std::uint32_t receive_queue::depth() const noexcept {
    const util::access_gate::hold in(gate_, util::access_gate::side::reader);
    return depth_;
}

status receive_queue::resize(std::uint32_t depth) noexcept {
    const util::access_gate::hold in(gate_, util::access_gate::side::other);
    if (depth == 0 || depth < size_ + held_) {
        return status::invalid_parameter;
    }
    if (depth <= capacity_) {
        depth_ = depth;
        return status::success;
    }
    try {
        // Build the grown tables first; commit with non-throwing moves only.
        const std::uint32_t added = depth - capacity_;
        auto chunk = std::make_unique<sge[]>(std::size_t{added} * max_sge_);
        std::vector<slot_entry> slots(slots_);
        slots.resize(depth);
        for (std::uint32_t i = 0; i < added; ++i) {
            slots[capacity_ + i] = {nullptr, 0, chunk.get() + std::size_t{i} * max_sge_};
        }
        std::vector<std::uint32_t> ring(depth);
        for (std::uint32_t i = 0, at = head_; i < size_; ++i) {
            ring[i] = ring_[at];
            if (++at == capacity_) {
                at = 0;
            }
        }
        std::vector<std::uint32_t> free_slots;
        free_slots.reserve(depth);  // release() pushes without allocating
        free_slots.assign(free_.begin(), free_.end());
        for (std::uint32_t i = depth; i > capacity_; --i) {
            free_slots.push_back(i - 1);
        }
        chunks_.reserve(chunks_.size() + 1);
        chunks_.push_back(std::move(chunk));
        slots_ = std::move(slots);
        ring_ = std::move(ring);
        free_ = std::move(free_slots);
        head_ = 0;
        capacity_ = depth;
        depth_ = depth;
        return status::success;
    } catch (const std::bad_alloc&) {
        return status::insufficient_resources;
    }
}

}  // namespace ndksim::core
