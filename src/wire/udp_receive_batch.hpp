// SPDX-License-Identifier: MIT
#pragma once
// The datagrams a UDP adapter takes from the kernel in one recvmmsg(2). Two ways, chosen once
// per socket:
// - frames: each slot is a receive frame taken from the adapter's pool, so a datagram lands
//   where the engine reads it, with no copy;
// - GRO (udp(7), UDP_GRO): each slot is a 64 KiB buffer that may hold a run of datagrams the
//   kernel kept together (a sender's UDP_SEGMENT message stays one buffer on loopback, and
//   the receive side of a NIC may coalesce), with the segment size in a control message. Each
//   datagram is then copied into a frame of its own: one copy of the bytes buys one system
//   call and one socket-buffer charge per run instead of per datagram.
// Slots, buffers, names and control space are sized at construction; receiving allocates
// nothing (frames come from the pool).

#include <netinet/in.h>
#include <sys/socket.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "wire/frame.hpp"
#include "wire/proto.hpp"
#include "wire/socket_common.hpp"

namespace ndksim::wire {

class udp_receive_batch {
  public:
    /// Datagrams (frames mode) or buffers (GRO mode) one recvmmsg fills at most.
    static constexpr std::size_t k_frame_slots = 64;
    static constexpr std::size_t k_gro_slots = 8;
    /// Bytes of one GRO buffer: the longest UDP payload fits.
    static constexpr std::size_t k_gro_buffer = 64 * 1024;

    /// Slots for frames, or (`gro`) GRO buffers, which are allocated here.
    explicit udp_receive_batch(bool gro);
    ~udp_receive_batch();
    udp_receive_batch(const udp_receive_batch&) = delete;
    udp_receive_batch& operator=(const udp_receive_batch&) = delete;

    /// True in GRO mode.
    bool gro() const noexcept { return gro_buffers_ != nullptr; }

    /// Reads what the non-blocking socket `fd` holds, up to the slots' count, frames mode
    /// taking frames from `pool` for empty slots first. Returns recvmmsg's result: the number
    /// of messages, or -1 with errno set (EAGAIN: nothing waits).
    int receive(int fd, frame_pool& pool) noexcept;

    /// Message `i` of the last receive: its sender's address.
    ip_address source(std::size_t i) const noexcept;

    /// Message `i` of the last receive: the drop count of SO_RXQ_OVFL, if it carries one.
    bool overflow_count(std::size_t i, std::uint32_t& count) noexcept;

    /// Hands each datagram of message `i` of the last receive to `deliver(frame*, length)`:
    /// the slot's own frame (frames mode), or a frame from `pool` with one segment copied in
    /// (GRO mode). A datagram cut to its slot is reported max_socket_body + 1 bytes long, so
    /// the receiver refuses it as too long; one longer than a frame is not copied, only its
    /// length is reported, for the same refusal.
    template <class Deliver>
    void split(std::size_t i, frame_pool& pool, Deliver&& deliver) noexcept {
        const msghdr& h = msgs_[i].msg_hdr;
        const std::size_t length = msgs_[i].msg_len;
        const bool cut = (h.msg_flags & MSG_TRUNC) != 0;
        if (!gro()) {
            frame* f = frames_[i];
            frames_[i] = nullptr;
            deliver(f, cut ? max_socket_body + 1 : length);
            return;
        }
        const std::byte* data = gro_buffers_.get() + i * k_gro_buffer;
        std::size_t segment = segment_size(i);
        if (segment == 0 || cut) {
            segment = length;
        }
        for (std::size_t at = 0; at < length; at += segment) {
            const std::size_t n = std::min(segment, length - at);
            frame* f = pool.take();
            if (n <= sizeof f->data) {
                std::memcpy(f->data, data + at, n);
            }
            deliver(f, cut ? max_socket_body + 1 : n);
        }
    }

    /// Gives the frames of the slots back to their pool (the socket closed).
    void release_frames() noexcept;

  private:
    std::size_t segment_size(std::size_t i) noexcept;

    static constexpr std::size_t k_slots = k_frame_slots;  // the larger of the two counts
    struct control {
        alignas(
            cmsghdr) std::byte bytes[CMSG_SPACE(sizeof(std::uint32_t)) + CMSG_SPACE(sizeof(int))];
    };
    std::array<mmsghdr, k_slots> msgs_{};
    std::array<iovec, k_slots> iov_{};
    std::array<sockaddr_in6, k_slots> names_{};
    std::array<control, k_slots> control_{};
    std::array<frame*, k_slots> frames_{};  // frames mode: each slot's buffer
    std::unique_ptr<std::byte[]> gro_buffers_;
};

}  // namespace ndksim::wire
