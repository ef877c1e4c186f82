// SPDX-License-Identifier: MIT
#pragma once
// A FIFO of frames linked through frame::next, for a socket transport's send queue: queueing
// and taking never allocate (the data path's rule), and a queue that is given up hands every
// frame back to its pool.

#include <atomic>
#include <cstdint>

#include "wire/frame.hpp"

namespace ndksim::wire {

/// Frames waiting to be sent, oldest first. Not thread-safe: a socket transport touches its
/// queues on its engine thread only.
class frame_queue {
  public:
    /// True when no frame waits.
    bool empty() const noexcept { return head_ == nullptr; }

    /// Appends `f`, which the queue holds until pop() hands it out.
    void push(frame* f) noexcept {
        f->next = nullptr;
        if (tail_ == nullptr) {
            head_ = f;
        } else {
            tail_->next = f;
        }
        tail_ = f;
    }

    /// Puts `f` before every queued frame (a frame taken out and not sent after all).
    void push_front(frame* f) noexcept {
        f->next = head_;
        head_ = f;
        if (tail_ == nullptr) {
            tail_ = f;
        }
    }

    /// The oldest frame, left in the queue; nullptr when the queue is empty.
    const frame* front() const noexcept { return head_; }

    /// Takes the oldest frame out; nullptr when the queue is empty.
    frame* pop() noexcept {
        frame* f = head_;
        if (f == nullptr) {
            return nullptr;
        }
        head_ = f->next;
        if (head_ == nullptr) {
            tail_ = nullptr;
        }
        f->next = nullptr;
        return f;
    }

    /// Releases every queued frame to its pool and adds how many to `dropped`: frames that
    /// will never be sent are lost as on a network, and counted.
    void drop_all(std::atomic<std::uint64_t>& dropped) noexcept {
        while (frame* f = pop()) {
            dropped.fetch_add(1, std::memory_order_relaxed);
            frame_pool::release(f);
        }
    }

  private:
    frame* head_ = nullptr;
    frame* tail_ = nullptr;
};

}  // namespace ndksim::wire
