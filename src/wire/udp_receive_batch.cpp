// SPDX-License-Identifier: MIT
#include "wire/udp_receive_batch.hpp"

#include <netinet/udp.h>

#include <algorithm>

namespace ndksim::wire {

udp_receive_batch::udp_receive_batch(bool gro) {
    if (gro) {
        gro_buffers_ = std::make_unique<std::byte[]>(k_gro_slots * k_gro_buffer);
        for (std::size_t i = 0; i < k_gro_slots; ++i) {
            iov_[i] = iovec{gro_buffers_.get() + i * k_gro_buffer, k_gro_buffer};
        }
    }
}

udp_receive_batch::~udp_receive_batch() {
    release_frames();
}

int udp_receive_batch::receive(int fd, frame_pool& pool) noexcept {
    const std::size_t slots = gro() ? k_gro_slots : k_frame_slots;
    for (std::size_t i = 0; i < slots; ++i) {
        if (!gro()) {
            if (frames_[i] == nullptr) {
                frames_[i] = pool.take();
            }
            iov_[i] = iovec{frames_[i]->data, sizeof frames_[i]->data};
        }
        // recvmmsg writes the lengths back into each header, so every slot is reset.
        msghdr& h = msgs_[i].msg_hdr;
        h = msghdr{};
        h.msg_name = &names_[i];
        h.msg_namelen = sizeof names_[i];
        h.msg_iov = &iov_[i];
        h.msg_iovlen = 1;
        h.msg_control = control_[i].bytes;
        h.msg_controllen = sizeof control_[i].bytes;
        msgs_[i].msg_len = 0;
    }
    return ::recvmmsg(fd, msgs_.data(), static_cast<unsigned>(slots), MSG_DONTWAIT, nullptr);
}

ip_address udp_receive_batch::source(std::size_t i) const noexcept {
    ip_address a;
    const sockaddr_in6& n = names_[i];
    if (n.sin6_family == AF_INET6) {
        // A v4-mapped address (::ffff:a.b.c.d) is the IPv4 peer of a dual-stack socket.
        static constexpr std::uint8_t k_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
        if (std::memcmp(&n.sin6_addr, k_mapped, sizeof k_mapped) == 0) {
            std::memcpy(a.bytes.data(), reinterpret_cast<const std::byte*>(&n.sin6_addr) + 12, 4);
            return a;
        }
        a.v6 = true;
        std::memcpy(a.bytes.data(), &n.sin6_addr, sizeof n.sin6_addr);
        return a;
    }
    sockaddr_in v4{};
    std::memcpy(&v4, &n, sizeof v4);
    std::memcpy(a.bytes.data(), &v4.sin_addr, sizeof v4.sin_addr);
    return a;
}

bool udp_receive_batch::overflow_count(std::size_t i, std::uint32_t& count) noexcept {
    msghdr& h = msgs_[i].msg_hdr;
    for (cmsghdr* c = CMSG_FIRSTHDR(&h); c != nullptr; c = CMSG_NXTHDR(&h, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL &&
            c->cmsg_len >= CMSG_LEN(sizeof(std::uint32_t))) {
            std::memcpy(&count, CMSG_DATA(c), sizeof count);
            return true;
        }
    }
    return false;
}

std::size_t udp_receive_batch::segment_size(std::size_t i) noexcept {
    msghdr& h = msgs_[i].msg_hdr;
    for (cmsghdr* c = CMSG_FIRSTHDR(&h); c != nullptr; c = CMSG_NXTHDR(&h, c)) {
        if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO &&
            c->cmsg_len >= CMSG_LEN(sizeof(int))) {
            int size = 0;
            std::memcpy(&size, CMSG_DATA(c), sizeof size);
            return size > 0 ? static_cast<std::size_t>(size) : 0;
        }
    }
    return 0;
}

void udp_receive_batch::release_frames() noexcept {
    for (frame*& f : frames_) {
        frame_pool::release(f);
        f = nullptr;
    }
}

}  // namespace ndksim::wire
