// SPDX-License-Identifier: MIT
#pragma once
// How a socket write hands one frame to the kernel in place (tcp_record_writer): one iovec over
// a frame that holds its bytes, three over a lent one (lent_frames.hpp): its headers, its
// payload where it lies in the sender's memory, and its tail (pad, ICRC, the socket trailer).
// The kernel's copy into the socket is then the sending side's only one.

#include <sys/uio.h>

#include <cstddef>

#include "wire/frame.hpp"

namespace ndksim::wire {

/// Iovecs frame_iovecs writes at most.
inline constexpr std::size_t k_max_frame_iovecs = 3;

/// Writes the iovecs of `f` to `out` (room for k_max_frame_iovecs) and returns how many; for a
/// lent frame, out[1] is its payload.
inline std::size_t frame_iovecs(const frame& f, iovec* out) noexcept {
    if (f.borrowed == nullptr) {
        out[0] = iovec{const_cast<std::byte*>(f.data), f.length};
        return 1;
    }
    const std::size_t tail = std::size_t{f.borrowed_offset} + f.borrowed_size;
    out[0] = iovec{const_cast<std::byte*>(f.data), f.borrowed_offset};
    // The kernel only reads it; iovec has no const pointer.
    out[1] = iovec{const_cast<std::byte*>(f.borrowed), f.borrowed_size};
    out[2] = iovec{const_cast<std::byte*>(f.data + tail), f.length - tail};
    return 3;
}

/// Points `payload`, the lent payload's iovec of `f` (what is left of it to write), at the
/// same bytes of the frame's own copy: for a frame materialized since (its request completed,
/// and the memory may be the consumer's again).
inline void repoint_payload(const frame& f, iovec& payload) noexcept {
    const std::size_t done = f.borrowed_size - payload.iov_len;
    payload.iov_base = const_cast<std::byte*>(f.data + f.borrowed_offset + done);
}

}  // namespace ndksim::wire
