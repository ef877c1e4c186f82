// SPDX-License-Identifier: MIT
#pragma once
// The entries of one completion queue: a fixed-capacity FIFO of core::completion, allocated
// when the CQ is created or resized and never on push or pop (STYLE.md habit 7).
//
// Concurrency: none of its own. The owning core::cq guards every call with its access gate;
// see the block at core::cq.

#include <cstdint>
#include <memory>

#include "core/work_request.hpp"

namespace ndksim::core {

class completion_ring {
  public:
    /// Allocates room for `capacity` entries (the CQ depth). Throws std::bad_alloc.
    explicit completion_ring(std::uint32_t capacity);

    completion_ring(completion_ring&&) noexcept = default;
    completion_ring& operator=(completion_ring&&) noexcept = default;
    completion_ring(const completion_ring&) = delete;
    completion_ring& operator=(const completion_ring&) = delete;
    ~completion_ring() = default;

    /// Number of entries the ring can hold.
    std::uint32_t capacity() const noexcept { return capacity_; }

    /// Number of entries queued.
    std::uint32_t size() const noexcept { return size_; }

    bool empty() const noexcept { return size_ == 0; }
    bool full() const noexcept { return size_ == capacity_; }

    /// Appends `c` at the tail. Returns false, leaving the ring unchanged, when it is full.
    bool push(const completion& c) noexcept;

    /// The oldest entry. Precondition: !empty().
    const completion& front() const noexcept { return slots_[head_]; }

    /// Removes the oldest entry. Precondition: !empty().
    void pop() noexcept;

    /// Moves every entry of `from`, oldest first, to the tail of this ring and leaves `from`
    /// empty; used by resize with a ring allocated beforehand. Precondition:
    /// size() + from.size() <= capacity().
    void take_all(completion_ring& from) noexcept;

  private:
    std::unique_ptr<completion[]> slots_;
    std::uint32_t capacity_;
    std::uint32_t head_ = 0;
    std::uint32_t size_ = 0;
};

}  // namespace ndksim::core
