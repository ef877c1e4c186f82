// SPDX-License-Identifier: MIT
#pragma once
// The datagrams a UDP adapter hands to the kernel in one sendmmsg(2): frames taken from its
// send queue, each referenced in place by an iovec (no copy), grouped into messages. With UDP
// generic segmentation offload (udp(7), UDP_SEGMENT) a message carries a run of frames to one
// destination that all have the length of its first frame, but for a shorter last one; the
// kernel cuts it into one datagram per frame, so the peer sees exactly the datagrams it would
// without it. Without GSO each message is one frame. Every array is sized once, here, so
// sending allocates nothing.

#include <netinet/in.h>
#include <sys/socket.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "wire/frame.hpp"
#include "wire/frame_queue.hpp"

namespace ndksim::wire {

class udp_send_batch {
  public:
    /// Frames one batch takes from the queue at most.
    static constexpr std::size_t k_frames = 256;
    /// Messages of one sendmmsg at most.
    static constexpr std::size_t k_messages = 64;
    /// Segments of one GSO message at most: UDP_MAX_SEGMENTS of every kernel that has
    /// UDP_SEGMENT (4.18 on; later kernels allow more).
    static constexpr std::size_t k_max_segments = 64;
    /// Bytes of one GSO message at most: the largest UDP payload of an IPv4 datagram (65535
    /// less the IPv4 and UDP headers); the kernel refuses more with EMSGSIZE.
    static constexpr std::size_t k_max_gso_bytes = 65535 - 20 - 8;

    udp_send_batch() = default;
    udp_send_batch(const udp_send_batch&) = delete;
    udp_send_batch& operator=(const udp_send_batch&) = delete;

    /// True when every message of the batch went to the kernel (or was dropped).
    bool empty() const noexcept { return next_ == count_; }

    /// Takes frames from `queue` (up to k_frames, in at most k_messages messages) and groups
    /// them into messages to `port` at the address each frame's `source` holds (the transport
    /// keeps the destination there while a frame is queued); with `gso`, runs of frames become
    /// one segmented message. Call only when empty().
    void fill(frame_queue& queue, std::uint16_t port, bool gso) noexcept;

    /// The messages not yet sent, for sendmmsg, and how many.
    mmsghdr* pending() noexcept { return msgs_.data() + next_; }
    unsigned pending_count() const noexcept { return static_cast<unsigned>(count_ - next_); }

    /// The kernel took the first `n` pending messages: their frames go back to their pools.
    void sent(std::size_t n) noexcept;

    /// The kernel refused the first pending message: its frames go back to their pools and
    /// are added to `lost` (a datagram that cannot be sent is lost, as on a network).
    void drop_first(std::atomic<std::uint64_t>& lost) noexcept;

    /// Puts the frames of the pending messages back at the front of `queue`, in their order,
    /// and empties the batch: for a batch to be built again (without segmentation, which the
    /// kernel refused) or dropped with the queue.
    void give_back(frame_queue& queue) noexcept;

  private:
    void start_message(const frame& f, std::uint16_t port) noexcept;
    void finish_message(bool gso) noexcept;
    void release(std::size_t message) noexcept;

    std::array<frame*, k_frames> frames_{};
    std::array<iovec, k_frames> iov_{};
    std::array<mmsghdr, k_messages> msgs_{};
    std::array<sockaddr_in6, k_messages> names_{};  // large enough for either family
    std::array<std::uint32_t, k_messages + 1>
        first_{};  // message i: frames [first_[i], first_[i+1])
    struct control {
        alignas(cmsghdr) std::byte bytes[CMSG_SPACE(sizeof(std::uint16_t))];
    };
    std::array<control, k_messages> control_{};
    std::size_t frame_count_ = 0;
    std::size_t count_ = 0;  // messages built
    std::size_t next_ = 0;   // first message not yet sent
};

}  // namespace ndksim::wire
