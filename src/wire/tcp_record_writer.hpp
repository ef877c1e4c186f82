// SPDX-License-Identifier: MIT
#pragma once
// The records an outgoing TCP connection hands to the kernel in one gathered write: frames taken
// from its send queue, each behind its 4-byte big-endian length prefix, referenced in place by
// iovecs (no copy). A lent frame's payload (lent_frames.hpp) is referenced where it is, in the
// sender's memory, so the kernel's copy is the only one; should the frame be materialized
// before its payload is written (its request completes by a flush), the rest is written from
// the frame. A 1 MiB message (256 frames) fits one batch. The kernel may take less than the
// whole batch (a full send buffer): the batch then remembers where it stopped, and the next
// write goes on from there. Every array is sized once, here, so sending allocates nothing.

#include <sys/uio.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "wire/frame.hpp"
#include "wire/frame_queue.hpp"

namespace ndksim::wire {

/// Bytes of the length prefix of a TCP record (big-endian).
inline constexpr std::size_t tcp_prefix_size = 4;

class tcp_record_writer {
  public:
    /// Frames one batch takes from the queue at most.
    static constexpr std::size_t k_frames = 256;

    tcp_record_writer() = default;
    tcp_record_writer(const tcp_record_writer&) = delete;
    tcp_record_writer& operator=(const tcp_record_writer&) = delete;

    /// True when the whole batch went to the kernel (or there is none).
    bool empty() const noexcept { return next_ == iov_count_; }

    /// Frames of the batch, sent or not, that have not gone back to their pools.
    std::size_t frames() const noexcept { return frame_count_; }

    /// Takes the next frames from `queue` (up to k_frames) into the batch. Call only when
    /// empty().
    void fill(frame_queue& queue) noexcept;

    /// The iovecs not yet written, for writev/sendmsg, and how many. A lent payload not yet
    /// wholly written whose frame was materialized since is pointed at the frame's copy here.
    iovec* pending() noexcept;
    std::size_t pending_count() const noexcept { return iov_count_ - next_; }

    /// The kernel took `bytes` of the pending iovecs; once it took them all, the batch's frames
    /// go back to their pools.
    void wrote(std::size_t bytes) noexcept;

    /// Gives every frame of the batch back to its pool; those not wholly written are added to
    /// `lost` (the connection broke or closed).
    void drop(std::atomic<std::uint64_t>& lost) noexcept;

  private:
    void release_all() noexcept;

    static constexpr std::size_t k_no_iov = SIZE_MAX;
    // The prefix and up to three iovecs a frame (frame_iovecs.hpp): 1024, Linux's IOV_MAX.
    static constexpr std::size_t k_iovs = 4 * k_frames;

    std::array<frame*, k_frames> frames_{};
    std::array<std::array<std::byte, tcp_prefix_size>, k_frames> prefixes_{};
    std::array<std::size_t, k_frames> end_iov_{};   // one past frame i's last iovec
    std::array<std::size_t, k_frames> lent_iov_{};  // frame i's lent payload, or k_no_iov
    std::array<iovec, k_iovs> iov_{};
    std::size_t frame_count_ = 0;
    std::size_t iov_count_ = 0;
    std::size_t lent_count_ = 0;  // frames whose payload iovec still points at lent memory
    std::size_t next_ = 0;        // first iovec not wholly written
};

}  // namespace ndksim::wire
