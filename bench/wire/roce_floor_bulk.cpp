// SPDX-License-Identifier: MIT
#include "roce_floor_bulk.hpp"

#include "floor_socket.hpp"
#include "peer_watch.hpp"

// What the bulk floor does, and why each step is there: a write of `message` bytes leaves as
// packets of at most 4096 payload bytes (the MTU the NIC profiles use), each a frame of
// headers, payload, ICRC and the socket trailer (docs/wire-format.md). The sender does what
// no sender of the format can skip: it computes each frame's CRC over its headers and payload
// and hands the kernel the payload straight from the source buffer (an iovec, no copy of its
// own). The receiver does what no receiver can skip: it checks the CRC before a byte is placed
// (RoCE has no other check of a frame) and copies the payload from where the kernel put it to
// the destination buffer. It acknowledges each write once its last packet is placed, and the
// sender keeps `window` writes outstanding. Over UDP every frame is a datagram, sent in
// UDP_SEGMENT messages and received with UDP_GRO; over TCP every frame is a record (a 4-byte
// length, then the frame), written with writev and read 256 KiB at a time.

#include <arpa/inet.h>
#include <fcntl.h>
#include <isa-l/crc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace ndksim::bench {
namespace {

using clock_type = std::chrono::steady_clock;

constexpr std::size_t k_mtu = 4096;
constexpr std::size_t k_header = 28;  // BTH and RETH, on every frame (the floor's format)
constexpr std::size_t k_tail = 12;    // ICRC and the socket trailer
constexpr std::size_t k_prefix = 4;   // TCP: the record's length
constexpr std::size_t k_frame_max = k_header + k_mtu + k_tail;
constexpr std::size_t k_gso_segments = 15;  // 15 frames of 4136 bytes fit one UDP datagram
constexpr std::size_t k_rx_slots = 16;
constexpr std::size_t k_rx_slot = 65536;
constexpr std::size_t k_tcp_read = 256 * 1024;
constexpr std::size_t k_buffer_bytes = 32 * 1024 * 1024;

enum : unsigned char { k_data = 1, k_ack = 2, k_hello = 3 };

[[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error(what + ": " + std::strerror(errno));
}

std::uint32_t crc(const unsigned char* header, const unsigned char* payload, std::size_t n) {
    const std::uint32_t h = crc32_gzip_refl(0, header, k_header);
    return crc32_gzip_refl(h, payload, n);
}

void put32(unsigned char* p, std::uint32_t v) {
    std::memcpy(p, &v, sizeof v);
}
std::uint32_t get32(const unsigned char* p) {
    std::uint32_t v = 0;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// The FORCE variants pass net.core.*mem_max with CAP_NET_ADMIN. Without it, UDP asks for the
// capped size (bulk_check then says whether it holds the window); TCP keeps the kernel's own
// sizing, which a fixed size below the cap would switch off (tcp(7)).
void big_buffers(int fd, bool tcp) {
    const int bytes = static_cast<int>(k_buffer_bytes);
    if (::setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof bytes) != 0 && !tcp) {
        ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
    }
    if (::setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &bytes, sizeof bytes) != 0 && !tcp) {
        ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
    }
}

// Datagrams have no retransmission here: B's receive buffer must hold a whole window, or the
// run loses frames and times out. Linux reports twice the size it granted.
void check_receive_buffer(int fd, const bulk_options& o) {
    int granted = 0;
    socklen_t size = sizeof granted;
    ::getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &granted, &size);
    const std::size_t packets = (o.message + k_mtu - 1) / k_mtu;
    const std::size_t window_bytes = o.window * packets * k_frame_max;
    if (static_cast<std::size_t>(granted) / 2 < window_bytes) {
        throw std::runtime_error(
            "the kernel grants a UDP receive buffer of " + std::to_string(granted / 2) +
            " bytes, less than the window's " + std::to_string(window_bytes) +
            "; run with CAP_NET_ADMIN, raise net.core.rmem_max, or lower --window");
    }
}

// One side's socket, buffers and counters.
class bulk {
  public:
    bulk(const bulk_options& o, bool first)
        : o_(o),
          first_(first),
          packets_((o.message + k_mtu - 1) / k_mtu),
          deadline_(clock_type::now()) {
        if (o_.message == 0) {
            throw std::runtime_error("a write of 0 bytes has no packets to measure");
        }
        data_.assign(o_.message, static_cast<unsigned char>(first ? 0x5a : 0));
        heads_.resize(packets_ * (k_prefix + k_header));
        tails_.resize(packets_ * k_tail);
        rx_.resize(o_.tcp ? 2 * k_tcp_read : k_rx_slots * k_rx_slot);
        o_.tcp ? open_tcp() : open_udp();
    }
    ~bulk() {
        if (fd_ >= 0) {
            ::close(fd_);
        }
    }
    bulk(const bulk&) = delete;
    bulk& operator=(const bulk&) = delete;

    double run() { return first_ ? send_all() : receive_all(); }

  private:
    void touch() { deadline_ = clock_type::now() + seconds(o_.timeout_s); }
    static clock_type::duration seconds(double s) {
        return std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(s));
    }
    void check_deadline(std::uint32_t spins, const char* waiting_for) const {
        if ((spins & 1023U) == 0 && peer_failed()) {
            throw std::runtime_error(std::string("side B failed while A waited for ") +
                                     waiting_for);
        }
        if ((spins & 1023U) == 0 && clock_type::now() > deadline_) {
            throw std::runtime_error(std::string("nothing for the timeout while waiting for ") +
                                     waiting_for);
        }
    }

    void open_udp() {
        fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd_ < 0) {
            fail("socket");
        }
        big_buffers(fd_, false);
        const int one = 1;
        if (!first_ && ::setsockopt(fd_, SOL_UDP, UDP_GRO, &one, sizeof one) != 0) {
            fail("UDP_GRO");
        }
        if (!first_) {
            check_receive_buffer(fd_, o_);
        }
        const sockaddr_in me = loopback(first_ ? o_.port : o_.port + 1);
        if (::bind(fd_, reinterpret_cast<const sockaddr*>(&me), sizeof me) != 0) {
            fail("bind 127.0.0.1:" + std::to_string(ntohs(me.sin_port)));
        }
        const sockaddr_in peer = loopback(first_ ? o_.port + 1 : o_.port);
        if (::connect(fd_, reinterpret_cast<const sockaddr*>(&peer), sizeof peer) != 0) {
            fail("connect");
        }
        // B announces itself until A's first frame arrives (receive_all); A waits for that
        // before it sends, so no frame goes to a port not bound yet.
        touch();
        if (first_) {
            unsigned char d[64];
            for (std::uint32_t spins = 0;; ++spins) {
                const ssize_t n = ::recv(fd_, d, sizeof d, 0);
                if (n > 0 && d[0] == k_hello) {
                    break;
                }
                check_deadline(spins, "side B to come up");
            }
        }
    }

    void open_tcp() {
        const std::uint16_t b_port = static_cast<std::uint16_t>(o_.port + 1);
        touch();
        if (!first_) {
            const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            const int one = 1;
            ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
            const sockaddr_in me = loopback(b_port);
            if (listener < 0 ||
                ::bind(listener, reinterpret_cast<const sockaddr*>(&me), sizeof me) != 0 ||
                ::listen(listener, 1) != 0) {
                fail("listen on 127.0.0.1:" + std::to_string(b_port));
            }
            fd_ = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
            ::close(listener);
            if (fd_ < 0) {
                fail("accept");
            }
        } else {
            const sockaddr_in peer = loopback(b_port);
            for (std::uint32_t tries = 0;; ++tries) {
                fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
                if (::connect(fd_, reinterpret_cast<const sockaddr*>(&peer), sizeof peer) == 0) {
                    break;
                }
                ::close(fd_);
                fd_ = -1;
                if (clock_type::now() > deadline_) {
                    fail("connect to 127.0.0.1:" + std::to_string(b_port));
                }
                ::usleep(1000);  // start-up only: B is not listening yet
            }
        }
        const int one = 1;
        ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        big_buffers(fd_, true);
        if (::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK) != 0) {
            fail("O_NONBLOCK");
        }
        // B greets A first, so that A never streams into another program's listener that
        // happened to hold PORT+1.
        unsigned char hello[k_prefix + k_header]{};
        put32(hello, k_header);
        hello[k_prefix] = k_hello;
        std::size_t done = 0;
        touch();
        for (std::uint32_t spins = 0; done < sizeof hello; ++spins) {
            const ssize_t n = first_ ? ::recv(fd_, hello + done, sizeof hello - done, 0)
                                     : ::send(fd_, hello + done, sizeof hello - done, 0);
            if (n > 0) {
                done += static_cast<std::size_t>(n);
            } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                fail(first_ ? "reading side B's greeting" : "greeting side A");
            } else {
                check_deadline(spins, "side B's greeting");
            }
        }
        if (first_ && (get32(hello) != k_header || hello[k_prefix] != k_hello)) {
            throw std::runtime_error("127.0.0.1:" + std::to_string(b_port) +
                                     " answered, but not as side B");
        }
    }

    // ---- sending (A) ------------------------------------------------------------------------

    // Headers, CRCs and trailers of write `m`'s frames; the payloads stay in data_.
    void build(std::uint32_t m) {
        for (std::size_t i = 0; i < packets_; ++i) {
            unsigned char* h = &heads_[i * (k_prefix + k_header)];
            unsigned char* header = h + k_prefix;
            const std::size_t n = std::min(k_mtu, o_.message - i * k_mtu);
            put32(h, static_cast<std::uint32_t>(k_header + n + k_tail));
            std::memset(header, 0, k_header);
            header[0] = k_data;
            put32(header + 4, m);
            put32(header + 8, static_cast<std::uint32_t>(i));
            put32(header + 12, static_cast<std::uint32_t>(n));
            unsigned char* t = &tails_[i * k_tail];
            put32(t, crc(header, &data_[i * k_mtu], n));
            std::memset(t + 4, 0, k_tail - 4);
        }
    }

    void send_write(std::uint32_t m) {
        build(m);
        o_.tcp ? send_tcp() : send_udp();
    }

    void send_udp() {
        std::array<iovec, 3 * k_gso_segments> iov{};
        segment_control control;
        for (std::size_t first = 0; first < packets_; first += k_gso_segments) {
            const std::size_t count = std::min(k_gso_segments, packets_ - first);
            for (std::size_t k = 0; k < count; ++k) {
                const std::size_t i = first + k;
                const std::size_t n = std::min(k_mtu, o_.message - i * k_mtu);
                iov[3 * k] = {&heads_[i * (k_prefix + k_header) + k_prefix], k_header};
                iov[3 * k + 1] = {&data_[i * k_mtu], n};
                iov[3 * k + 2] = {&tails_[i * k_tail], k_tail};
            }
            const msghdr h =
                segmented(iov.data(), 3 * count, static_cast<std::uint16_t>(k_frame_max), control);
            for (std::uint32_t spins = 0; ::sendmsg(fd_, &h, 0) < 0; ++spins) {
                if (errno != EAGAIN && errno != ENOBUFS && errno != EINTR) {
                    fail("sendmsg");
                }
                check_deadline(spins, "room in the send buffer");
            }
        }
    }

    void send_tcp() {
        std::vector<iovec>& iov = iov_;
        iov.clear();
        for (std::size_t i = 0; i < packets_; ++i) {
            const std::size_t n = std::min(k_mtu, o_.message - i * k_mtu);
            iov.push_back({&heads_[i * (k_prefix + k_header)], k_prefix + k_header});
            iov.push_back({&data_[i * k_mtu], n});
            iov.push_back({&tails_[i * k_tail], k_tail});
        }
        std::size_t at = 0;
        touch();
        for (std::uint32_t spins = 0; at < iov.size(); ++spins) {
            const int count = static_cast<int>(std::min<std::size_t>(iov.size() - at, 1020));
            const ssize_t n = ::writev(fd_, &iov[at], count);
            if (n < 0) {
                if (errno != EAGAIN && errno != EINTR) {
                    fail("writev");
                }
                check_deadline(spins, "room in the send buffer");
                continue;
            }
            // Steps over what the kernel took, part of an iovec included.
            auto left = static_cast<std::size_t>(n);
            while (left > 0 && left >= iov[at].iov_len) {
                left -= iov[at].iov_len;
                ++at;
            }
            if (left > 0) {
                iov[at].iov_base = static_cast<unsigned char*>(iov[at].iov_base) + left;
                iov[at].iov_len -= left;
            }
            touch();
        }
    }

    // Reads whatever ACKs have come; returns the writes acknowledged so far.
    std::uint64_t take_acks(std::uint64_t acked) {
        const ssize_t n = ::recv(fd_, rx_.data() + held_, rx_.size() - held_, MSG_DONTWAIT);
        if (n == 0) {
            throw std::runtime_error("side B closed the connection");
        }
        if (n < 0) {
            if (errno != EAGAIN && errno != EINTR) {
                fail("recv");
            }
            return acked;
        }
        touch();
        if (!o_.tcp) {  // one datagram: an ACK
            return rx_[0] == k_ack ? std::max<std::uint64_t>(acked, get32(&rx_[4]) + 1ULL) : acked;
        }
        held_ += static_cast<std::size_t>(n);
        std::size_t at = 0;
        while (held_ - at >= k_prefix + k_header) {
            const unsigned char* h = &rx_[at + k_prefix];
            if (h[0] == k_ack) {
                acked = std::max<std::uint64_t>(acked, get32(h + 4) + 1ULL);
            }
            at += k_prefix + k_header;
        }
        std::memmove(rx_.data(), rx_.data() + at, held_ - at);
        held_ -= at;
        return acked;
    }

    double send_all() {
        const auto start = clock_type::now();
        std::uint64_t sent = 0;
        std::uint64_t acked = 0;
        touch();
        for (std::uint32_t spins = 0; acked < o_.messages; ++spins) {
            while (sent < o_.messages && sent - acked < o_.window) {
                send_write(static_cast<std::uint32_t>(sent++));
            }
            acked = take_acks(acked);
            check_deadline(spins, "an ACK");
        }
        return std::chrono::duration<double>(clock_type::now() - start).count();
    }

    // ---- receiving (B) ----------------------------------------------------------------------

    // Checks one frame and places its payload; acknowledges the write its last packet ends.
    void place(const unsigned char* f, std::size_t length) {
        if (length < k_header + k_tail || f[0] != k_data) {
            if (o_.tcp) {
                throw std::runtime_error("a record that is not a frame of this run");
            }
            return;  // a start-up datagram
        }
        const std::size_t n = length - k_header - k_tail;
        const std::uint32_t m = get32(f + 4);
        const std::uint32_t i = get32(f + 8);
        if (i >= packets_ || n > k_mtu || i * k_mtu + n > o_.message || get32(f + 12) != n) {
            throw std::runtime_error("a frame outside the write");
        }
        if (crc(f, f + k_header, n) != get32(f + k_header + n)) {
            throw std::runtime_error("a frame failed its CRC");
        }
        std::memcpy(&data_[i * k_mtu], f + k_header, n);
        if (++placed_ % packets_ == 0) {
            unsigned char ack[k_prefix + k_header]{};
            put32(ack, k_header);
            ack[k_prefix] = k_ack;
            put32(ack + k_prefix + 4, m);
            const unsigned char* out = o_.tcp ? ack : ack + k_prefix;
            std::size_t left = o_.tcp ? sizeof ack : k_header;
            for (std::uint32_t spins = 0; left > 0; ++spins) {
                const ssize_t sent = ::send(fd_, out, left, 0);
                if (sent >= 0) {
                    out += sent;  // TCP may take part of the record
                    left -= static_cast<std::size_t>(sent);
                    continue;
                }
                if (errno != EAGAIN && errno != ENOBUFS && errno != EINTR) {
                    fail("send");
                }
                check_deadline(spins, "room for an ACK");
            }
        }
    }

    void receive_udp() {
        std::array<mmsghdr, k_rx_slots> msgs{};
        std::array<iovec, k_rx_slots> iov{};
        struct control {
            alignas(cmsghdr) std::byte bytes[CMSG_SPACE(sizeof(int))];
        };
        std::array<control, k_rx_slots> controls{};
        for (std::size_t k = 0; k < k_rx_slots; ++k) {
            iov[k] = {&rx_[k * k_rx_slot], k_rx_slot};
            msgs[k].msg_hdr.msg_iov = &iov[k];
            msgs[k].msg_hdr.msg_iovlen = 1;
            msgs[k].msg_hdr.msg_control = controls[k].bytes;
            msgs[k].msg_hdr.msg_controllen = sizeof controls[k].bytes;
        }
        const int n = ::recvmmsg(fd_, msgs.data(), k_rx_slots, MSG_DONTWAIT, nullptr);
        if (n < 0) {
            if (errno != EAGAIN && errno != EINTR && errno != ECONNREFUSED) {
                fail("recvmmsg");
            }
            return;
        }
        touch();
        for (int k = 0; k < n; ++k) {
            const std::size_t length = msgs[k].msg_len;
            const std::size_t segment = gro_segment(msgs[k].msg_hdr, length);
            const unsigned char* base = &rx_[static_cast<std::size_t>(k) * k_rx_slot];
            for (std::size_t at = 0; at < length; at += segment) {
                place(base + at, std::min(segment, length - at));
            }
        }
    }

    void receive_tcp() {
        const ssize_t n = ::recv(fd_, rx_.data() + held_, k_tcp_read, MSG_DONTWAIT);
        if (n == 0) {
            throw std::runtime_error("side A closed the connection");
        }
        if (n < 0) {
            if (errno != EAGAIN && errno != EINTR) {
                fail("recv");
            }
            return;
        }
        touch();
        held_ += static_cast<std::size_t>(n);
        std::size_t at = 0;
        while (held_ - at >= k_prefix) {
            const std::size_t length = get32(&rx_[at]);
            if (length < k_header + k_tail || length > k_frame_max) {
                throw std::runtime_error("a record of " + std::to_string(length) + " bytes");
            }
            if (held_ - at - k_prefix < length) {
                break;
            }
            place(&rx_[at + k_prefix], length);
            at += k_prefix + length;
        }
        std::memmove(rx_.data(), rx_.data() + at, held_ - at);
        held_ -= at;
    }

    double receive_all() {
        touch();
        const std::uint64_t all = o_.messages * packets_;
        auto hello_at = clock_type::time_point{};
        for (std::uint32_t spins = 0; placed_ < all; ++spins) {
            if (!o_.tcp && placed_ == 0 &&
                clock_type::now() - hello_at > std::chrono::milliseconds(1)) {
                const unsigned char hello[k_header] = {k_hello};
                ::send(fd_, hello, sizeof hello, 0);  // lost while A is not bound yet
                hello_at = clock_type::now();
            }
            o_.tcp ? receive_tcp() : receive_udp();
            check_deadline(spins, "a frame");
        }
        return 0.0;
    }

    bulk_options o_;
    bool first_;
    std::size_t packets_;
    clock_type::time_point deadline_;
    int fd_ = -1;
    std::vector<unsigned char> data_;   // A: the source; B: the destination
    std::vector<unsigned char> heads_;  // A: each frame's record prefix and headers
    std::vector<unsigned char> tails_;  // A: each frame's CRC and trailer
    std::vector<unsigned char> rx_;     // what the kernel handed over
    std::vector<iovec> iov_;            // A over TCP: one write's gather list
    std::size_t held_ = 0;              // TCP: bytes of rx_ not yet parsed
    std::uint64_t placed_ = 0;          // B: frames placed
};

}  // namespace

void bulk_check(const bulk_options& o) {
    if (o.tcp) {
        return;
    }
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        fail("socket");
    }
    big_buffers(fd, false);
    try {
        check_receive_buffer(fd, o);
    } catch (...) {
        ::close(fd);
        throw;
    }
    ::close(fd);
}

double bulk_side(const bulk_options& o, bool first) {
    bulk b(o, first);
    return b.run();
}

}  // namespace ndksim::bench
