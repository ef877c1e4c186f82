// SPDX-License-Identifier: MIT
#pragma once
// bench_roce_floor: one UDP_SEGMENT message (udp(7)), the way the UDP wire batches frames.

#include <netinet/udp.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ndksim::bench {

/// Room for the control message of one segmented send.
struct segment_control {
    alignas(cmsghdr) std::byte bytes[CMSG_SPACE(sizeof(std::uint16_t))]{};
};

/// A message gathering `iov`, which the kernel cuts into datagrams of `segment` bytes (the
/// last may be shorter); `control` must outlive the send.
inline msghdr segmented(iovec* iov, std::size_t count, std::uint16_t segment,
                        segment_control& control) {
    msghdr h{};
    h.msg_iov = iov;
    h.msg_iovlen = count;
    h.msg_control = control.bytes;
    h.msg_controllen = sizeof control.bytes;
    cmsghdr* c = CMSG_FIRSTHDR(&h);
    c->cmsg_level = SOL_UDP;
    c->cmsg_type = UDP_SEGMENT;
    c->cmsg_len = CMSG_LEN(sizeof(std::uint16_t));
    std::memcpy(CMSG_DATA(c), &segment, sizeof segment);
    return h;
}

}  // namespace ndksim::bench
