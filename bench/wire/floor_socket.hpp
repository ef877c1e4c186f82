// SPDX-License-Identifier: MIT
#pragma once
// bench_roce_floor's sockets: loopback addresses, and the UDP offloads (udp(7)) the UDP wire
// uses where the kernel has them.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ndksim::bench {

/// 127.0.0.1:`port`.
inline sockaddr_in loopback(std::uint16_t port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

/// The datagram size of a message of `length` bytes received with UDP_GRO: the segment size
/// the kernel reported when it coalesced datagrams into the message, else `length`.
inline std::size_t gro_segment(msghdr& h, std::size_t length) {
    for (cmsghdr* c = CMSG_FIRSTHDR(&h); c != nullptr; c = CMSG_NXTHDR(&h, c)) {
        if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
            int size = 0;
            std::memcpy(&size, CMSG_DATA(c), sizeof size);
            return size > 0 ? static_cast<std::size_t>(size) : length;
        }
    }
    return length;
}

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
