// SPDX-License-Identifier: MIT
#include "wire/udp_send_batch.hpp"

#include <netinet/udp.h>

#include <algorithm>
#include <cstring>

namespace ndksim::wire {

namespace {

// The socket address of `a`:`port` in `out` (sockaddr_in6 is large enough for either family);
// returns its length.
socklen_t socket_address(const ip_address& a, std::uint16_t port, sockaddr_in6& out) noexcept {
    out = sockaddr_in6{};
    if (a.v6) {
        out.sin6_family = AF_INET6;
        out.sin6_port = htons(port);
        std::memcpy(&out.sin6_addr, a.bytes.data(), sizeof out.sin6_addr);
        return sizeof(sockaddr_in6);
    }
    sockaddr_in v4{};
    v4.sin_family = AF_INET;
    v4.sin_port = htons(port);
    std::memcpy(&v4.sin_addr, a.bytes.data(), sizeof v4.sin_addr);
    static_assert(sizeof v4 <= sizeof out);
    std::memcpy(&out, &v4, sizeof v4);
    return sizeof(sockaddr_in);
}

}  // namespace

void udp_send_batch::start_message(const frame& f, std::uint16_t port) noexcept {
    mmsghdr& m = msgs_[count_];
    m = mmsghdr{};
    m.msg_hdr.msg_name = &names_[count_];
    m.msg_hdr.msg_namelen = socket_address(f.source, port, names_[count_]);
    m.msg_hdr.msg_iov = &iov_[frame_count_];
    first_[count_] = static_cast<std::uint32_t>(frame_count_);
    ++count_;
}

void udp_send_batch::finish_message(bool gso) noexcept {
    const std::size_t i = count_ - 1;
    const std::size_t n = frame_count_ - first_[i];
    first_[count_] = static_cast<std::uint32_t>(frame_count_);
    msghdr& h = msgs_[i].msg_hdr;
    h.msg_iovlen = n;
    if (!gso || n < 2) {
        return;
    }
    // The segment size is the first frame's length; the kernel cuts the message there, and
    // only the last segment may be shorter (udp(7), UDP_SEGMENT).
    h.msg_control = control_[i].bytes;
    h.msg_controllen = sizeof control_[i].bytes;
    cmsghdr* c = CMSG_FIRSTHDR(&h);
    c->cmsg_level = SOL_UDP;
    c->cmsg_type = UDP_SEGMENT;
    c->cmsg_len = CMSG_LEN(sizeof(std::uint16_t));
    const auto segment = static_cast<std::uint16_t>(frames_[first_[i]]->length);
    std::memcpy(CMSG_DATA(c), &segment, sizeof segment);
}

void udp_send_batch::fill(frame_queue& queue, std::uint16_t port, bool gso) noexcept {
    frame_count_ = 0;
    count_ = 0;
    next_ = 0;
    std::size_t bytes = 0;  // of the message being built
    while (frame_count_ < k_frames) {
        const frame* f = queue.front();
        if (f == nullptr) {
            break;
        }
        bool joins = false;
        if (gso && count_ > 0) {
            const std::size_t first = first_[count_ - 1];
            const frame& head = *frames_[first];
            joins = frame_count_ - first < k_max_segments && f->source == head.source &&
                    f->length <= head.length && frames_[frame_count_ - 1]->length == head.length &&
                    bytes + f->length <= k_max_gso_bytes;
        }
        if (!joins) {
            if (count_ == k_messages) {
                break;
            }
            if (count_ > 0) {
                finish_message(gso);
            }
            start_message(*f, port);
            bytes = 0;
        }
        frame* taken = queue.pop();
        frames_[frame_count_] = taken;
        iov_[frame_count_] = iovec{taken->data, taken->length};
        ++frame_count_;
        bytes += taken->length;
    }
    if (count_ > 0) {
        finish_message(gso);
    }
}

void udp_send_batch::release(std::size_t message) noexcept {
    for (std::size_t i = first_[message]; i < first_[message + 1]; ++i) {
        frame_pool::release(frames_[i]);
        frames_[i] = nullptr;
    }
}

void udp_send_batch::sent(std::size_t n) noexcept {
    n = std::min(n, count_ - next_);
    for (std::size_t i = 0; i < n; ++i) {
        release(next_++);
    }
}

void udp_send_batch::drop_first(std::atomic<std::uint64_t>& lost) noexcept {
    if (empty()) {
        return;
    }
    lost.fetch_add(first_[next_ + 1] - first_[next_], std::memory_order_relaxed);
    release(next_++);
}

void udp_send_batch::give_back(frame_queue& queue) noexcept {
    if (!empty()) {
        for (std::size_t i = frame_count_; i-- > first_[next_];) {
            queue.push_front(frames_[i]);
            frames_[i] = nullptr;
        }
    }
    frame_count_ = 0;
    count_ = 0;
    next_ = 0;
}

}  // namespace ndksim::wire
