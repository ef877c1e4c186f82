// SPDX-License-Identifier: MIT
#pragma once
// Frames lent by one sending QP: frames whose payload stays in the sender's host memory
// (frame::borrowed) until the receiving engine places it, so that an in-process write copies
// its payload once, from the sender's memory into the receiver's, where a frame that holds a
// copy costs two copies (transport::lends_payload says where this is allowed).
//
// A NIC reads a packet's payload when the packet departs; a lent frame reads it when the
// receiver places it, later in simulated time. The two give the same bytes as long as the
// consumer may not change or free the memory in between, which holds until the request
// completes (NDKPI: a buffer belongs to the provider until its request's completion). So the
// sender keeps its lent frames here, in the order they left, and copies the payload into every
// frame of a request before that request completes, whatever completes it (an ACK that
// overtook a retransmission, a flush, a failed QP): materialize(). A frame that is consumed
// or dropped leaves the list when it goes back to its pool. A layer that keeps a frame longer
// than the link would (a delay, a reorder, a duplicate) or records its bytes (a capture)
// materializes it first.
//
// Thread: a list and its frames are touched by one thread, the one running the sender's and
// the receiver's engines (a deterministic loop, wire::transport::lends_payload).

#include <cstddef>
#include <cstdint>

#include "wire/frame.hpp"

namespace ndksim::wire {

class lent_frames {
  public:
    lent_frames() = default;
    lent_frames(const lent_frames&) = delete;
    lent_frames& operator=(const lent_frames&) = delete;

    /// Copies the payload into every frame still lent, so that none refers to the sender's
    /// memory after the list is gone.
    ~lent_frames();

    /// True when no frame is lent.
    bool empty() const noexcept { return head_ == nullptr; }

    /// Frames lent and not yet consumed or materialized.
    std::size_t size() const noexcept { return count_; }

    /// Lends `f`, whose payload of `size` bytes at data[offset] was not written: it is read
    /// from `bytes` instead until the frame is consumed or materialized. `psn` is the packet's.
    void lend(frame& f, const std::byte* bytes, std::uint32_t offset, std::uint32_t size,
              std::uint32_t psn) noexcept;

    /// Copies the payload into each lent frame whose PSN lies in [first, last] (PSN order,
    /// modulo 2^24) and returns how many. Called before a request completes, requests in
    /// order: while frames were lent in PSN order, it looks no further than the first frame
    /// after `last` (frames before `first` are those of requests completed already); after a
    /// frame was lent out of order (a retransmission), it looks at every frame until the list
    /// empties.
    std::size_t materialize(std::uint32_t first, std::uint32_t last) noexcept;

    /// Copies the payload into every lent frame; returns how many.
    std::size_t materialize_all() noexcept;

    /// Unlinks `f` without copying (the frame goes back to its pool). `f` is on this list.
    void forget(frame& f) noexcept;

    /// Copies the payload of `f` into its data and unlinks it from its list. Does nothing for
    /// a frame that holds its payload.
    static void materialize(frame& f) noexcept;

  private:
    frame* head_ = nullptr;  // oldest
    frame* tail_ = nullptr;
    std::size_t count_ = 0;
    bool ordered_ = true;  // every frame was lent with a PSN after the one before it
};

/// Makes `f` hold its own payload (lent_frames::materialize): for a layer that keeps the frame
/// beyond its flight, copies it or records its bytes.
inline void materialize(frame& f) noexcept {
    if (f.lender != nullptr) {
        lent_frames::materialize(f);
    }
}

}  // namespace ndksim::wire
