// SPDX-License-Identifier: MIT
// The floor under the two-process figures of bench/compare.sh: the frames an RC RDMA write
// puts on the socket wires, sent and received by two processes on loopback with nothing else
// done, so the cost of the wire's format is measured apart from the simulator's.
//
// On the UDP wire every RoCE packet is one datagram (docs/wire-format.md): a write of 8 or 64
// bytes is a request (BTH, RETH, payload, ICRC, the socket trailer) and an RC request completes
// at its requester only once an ACK covers it (IBA vol. 1, 9.7), a second datagram (BTH, AETH,
// ICRC, trailer). The payloads here have those sizes; their bytes are not RoCE headers, since
// only the kernel's work is measured.
//
//   lat   ping-pong of writes, as `ndksim-perf --test write --mode lat` runs it: A sends a
//         request; B, once it has it, sends its own request and the ACK of A's in one
//         sendmmsg; A, once it has B's request, sends its next request and the ACK of B's in
//         one sendmmsg. Each side puts the request the other waits for first, the order that
//         puts the least before the reply. Prints the one-way time (half a round trip) in
//         microseconds.
//   rate  a stream of writes with `--window` outstanding, as `ndksim-perf --mode bw` keeps
//         them: A sends requests in sendmmsg batches while fewer than the window wait for an
//         ACK; B receives with recvmmsg and sends one ACK per batch received (the responder's
//         ACK coalescing at its best). Prints writes per second.
//   bw    writes of --bytes (1 MiB) with --window (16) outstanding over --wire udp or tcp:
//         the sender computes each 4 KiB frame's CRC and hands the payload to the kernel
//         from the source buffer, the receiver checks the CRC and copies the payload to the
//         destination (roce_floor_bulk.cpp). Prints MB/s.
//
// Both sides busy-poll (non-blocking reads in a loop), as the latency and rate rows do. The
// tool forks: the parent is A on 127.0.0.1:PORT, the child B on 127.0.0.1:PORT+1. A side that
// sees nothing for --timeout seconds gives up and the tool exits 1.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "floor_socket.hpp"
#include "peer_watch.hpp"
#include "roce_floor_bulk.hpp"

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// Datagram sizes [bytes]: BTH 12 + RETH 16 + payload + ICRC 4 + socket trailer 8 for a write
// request; BTH 12 + AETH 4 + ICRC 4 + trailer 8 for its ACK.
constexpr std::size_t k_request_overhead = 12 + 16 + 4 + 8;
constexpr std::size_t k_ack_size = 12 + 4 + 4 + 8;
constexpr std::size_t k_batch = 64;  // datagrams per sendmmsg / recvmmsg at most
constexpr std::size_t k_max_datagram = 2048;
constexpr std::size_t k_max_udp_payload = 65'507;  // an IPv4 datagram's largest payload

// First byte of each datagram: what it is. Bytes 4-7: the request's sequence number, or the
// last one an ACK covers.
// The start-up's datagrams (meet) are neither.
enum : unsigned char { k_request = 1, k_ack = 2, k_hello = 3, k_start = 4, k_started = 5 };

using clock_type = std::chrono::steady_clock;

struct options {
    std::string mode;
    std::uint16_t port = 0;
    std::uint64_t iterations = 20000;
    std::size_t size = 8;
    std::uint32_t window = 64;
    double timeout_s = 10;
};

int open_socket(std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
    }
    const sockaddr_in a = ndksim::bench::loopback(port);
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
        throw std::runtime_error("bind 127.0.0.1:" + std::to_string(port) + ": " +
                                 std::strerror(errno));
    }
    return fd;
}

void connect_to(int fd, std::uint16_t port) {
    const sockaddr_in a = ndksim::bench::loopback(port);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
        throw std::runtime_error(std::string("connect: ") + std::strerror(errno));
    }
}

// One side's socket with its receive and send batches, allocated once. With `offload` (the
// stream) it sends each flush as one UDP_SEGMENT message and receives with UDP_GRO, as the UDP
// wire does where the kernel has them (udp(7)); the ping-pong sends one datagram per message.
class side {
  public:
    side(int fd, const options& o, bool offload) : fd_(fd), opts_(o), offload_(offload) {
        if (offload_) {
            const int one = 1;
            if (::setsockopt(fd_, SOL_UDP, UDP_GRO, &one, sizeof one) != 0) {
                throw std::runtime_error(std::string("UDP_GRO: ") + std::strerror(errno));
            }
        }
        rx_.resize(k_batch * k_rx_buffer);
        for (std::size_t i = 0; i < k_batch; ++i) {
            rx_iov_[i] = {rx_.data() + i * k_rx_buffer, k_rx_buffer};
            rx_msgs_[i].msg_hdr.msg_iov = &rx_iov_[i];
            rx_msgs_[i].msg_hdr.msg_iovlen = 1;
            rx_msgs_[i].msg_hdr.msg_control = rx_control_[i].bytes;
            tx_msgs_[i].msg_hdr.msg_iov = &tx_iov_[i];
            tx_msgs_[i].msg_hdr.msg_iovlen = 1;
        }
    }

    /// Queues a datagram of `size` bytes of `kind` carrying `seq` for the next flush().
    void queue(unsigned char kind, std::uint32_t seq, std::size_t size) {
        auto& d = tx_[queued_];
        d[0] = kind;
        std::memcpy(d.data() + 4, &seq, sizeof seq);
        tx_iov_[queued_] = {d.data(), size};
        ++queued_;
        if (queued_ == k_batch) {
            flush();
        }
    }

    /// Sends every queued datagram, in order.
    void flush() {
        if (queued_ == 0) {
            return;
        }
        if (offload_ && queued_ > 1) {
            send_segmented();
        } else {
            std::size_t at = 0;
            while (at < queued_) {
                const int n =
                    ::sendmmsg(fd_, tx_msgs_.data() + at, static_cast<unsigned>(queued_ - at), 0);
                if (n >= 0) {
                    at += static_cast<std::size_t>(n);
                } else {
                    retry_or_throw("sendmmsg");
                }
            }
        }
        queued_ = 0;
    }

    /// Reads what has arrived (without waiting); spins until at least one message is there.
    /// Returns the messages read; a message may hold several datagrams (segments()).
    std::size_t receive() {
        const auto deadline =
            clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                                    std::chrono::duration<double>(opts_.timeout_s));
        for (std::uint32_t spins = 0;; ++spins) {
            for (std::size_t i = 0; i < k_batch; ++i) {
                rx_msgs_[i].msg_hdr.msg_controllen = sizeof rx_control_[i].bytes;
            }
            const int n = ::recvmmsg(fd_, rx_msgs_.data(), k_batch, MSG_DONTWAIT, nullptr);
            if (n > 0) {
                return static_cast<std::size_t>(n);
            }
            if (n < 0 && errno != EAGAIN && errno != EINTR && errno != ECONNREFUSED) {
                throw std::runtime_error(std::string("recvmmsg: ") + std::strerror(errno));
            }
            if ((spins & 1023U) == 0 && ndksim::bench::peer_failed()) {
                throw std::runtime_error("side B failed");
            }
            if ((spins & 1023U) == 0 && clock_type::now() > deadline) {
                throw std::runtime_error("nothing received for the timeout");
            }
        }
    }

    /// Datagrams in received message `i` (the kernel may have coalesced several).
    std::size_t segments(std::size_t i) {
        const std::size_t length = rx_msgs_[i].msg_len;
        const std::size_t segment = ndksim::bench::gro_segment(rx_msgs_[i].msg_hdr, length);
        return segment == 0 ? 1 : (length + segment - 1) / segment;
    }
    /// Kind of message `i` (of its first datagram; a coalesced message is of one kind).
    unsigned char kind(std::size_t i) const { return rx_[i * k_rx_buffer]; }
    /// Sequence number of the last datagram of message `i` (segments of `size` bytes).
    std::uint32_t last_seq(std::size_t i, std::size_t size) {
        std::uint32_t s = 0;
        const std::size_t at = i * k_rx_buffer + (segments(i) - 1) * size + 4;
        std::memcpy(&s, rx_.data() + at, sizeof s);
        return s;
    }

  private:
    static constexpr std::size_t k_rx_buffer = 65536;  // a coalesced message fits
    static constexpr std::size_t k_tx_datagram = 2048;

    void retry_or_throw(const char* what) const {
        // A full socket buffer for a moment: busy-poll on. ECONNREFUSED: the ICMP of a
        // datagram sent before the peer bound its port.
        if (errno != EAGAIN && errno != ENOBUFS && errno != EINTR && errno != ECONNREFUSED) {
            throw std::runtime_error(std::string(what) + ": " + std::strerror(errno));
        }
    }

    // Every queued datagram has one size here (the stream's requests): messages that the
    // kernel cuts into them, each at most one UDP datagram's worth (65,507 bytes).
    void send_segmented() {
        const std::size_t segment = tx_iov_[0].iov_len;
        const std::size_t per_message = std::max<std::size_t>(1, k_max_udp_payload / segment);
        for (std::size_t at = 0; at < queued_; at += per_message) {
            const std::size_t count = std::min(per_message, queued_ - at);
            ndksim::bench::segment_control segment_room;
            const msghdr h = ndksim::bench::segmented(
                tx_iov_.data() + at, count, static_cast<std::uint16_t>(segment), segment_room);
            while (::sendmsg(fd_, &h, 0) < 0) {
                retry_or_throw("sendmsg");
            }
        }
    }

    int fd_;
    const options& opts_;
    bool offload_;
    std::vector<unsigned char> rx_;
    std::array<iovec, k_batch> rx_iov_{};
    std::array<mmsghdr, k_batch> rx_msgs_{};
    struct control {
        alignas(cmsghdr) std::byte bytes[CMSG_SPACE(sizeof(int))];
    };
    std::array<control, k_batch> rx_control_{};
    std::array<std::array<unsigned char, k_tx_datagram>, k_batch> tx_{};
    std::array<iovec, k_batch> tx_iov_{};
    std::array<mmsghdr, k_batch> tx_msgs_{};
    std::size_t queued_ = 0;
};

// Ping-pong, side A (`first`) or B. Returns the seconds A's iterations took (B: 0).
double ping_pong(side& s, const options& o, bool first) {
    const std::size_t request = k_request_overhead + o.size;
    const auto start = clock_type::now();
    if (first) {
        s.queue(k_request, 0, request);
        s.flush();
    }
    for (std::uint64_t i = 0; i < o.iterations; ++i) {
        // Wait for the peer's request i (ACKs of our own requests are only drained).
        bool got = false;
        while (!got) {
            const std::size_t n = s.receive();
            for (std::size_t k = 0; k < n; ++k) {
                got = got || s.kind(k) == k_request;
            }
        }
        const auto seq = static_cast<std::uint32_t>(i);
        if (first) {
            // A: its request i + 1 first (the reply B waits for; none after the last), then
            // the ACK of B's request i.
            if (i + 1 < o.iterations) {
                s.queue(k_request, seq + 1, request);
            }
            s.queue(k_ack, seq, k_ack_size);
        } else {
            // B: its request i first (the reply A waits for), then the ACK of A's.
            s.queue(k_request, seq, request);
            s.queue(k_ack, seq, k_ack_size);
        }
        s.flush();
    }
    return first ? std::chrono::duration<double>(clock_type::now() - start).count() : 0.0;
}

// Stream: A sends, B acknowledges each batch it receives. Returns A's seconds (B: 0).
double stream(side& s, const options& o, bool sender) {
    const std::size_t request = k_request_overhead + o.size;
    const auto start = clock_type::now();
    if (sender) {
        std::uint64_t sent = 0;
        std::uint64_t acked = 0;
        while (acked < o.iterations) {
            while (sent < o.iterations && sent - acked < o.window) {
                s.queue(k_request, static_cast<std::uint32_t>(sent), request);
                ++sent;
            }
            s.flush();
            const std::size_t n = s.receive();
            for (std::size_t k = 0; k < n; ++k) {
                if (s.kind(k) == k_ack) {
                    acked = std::max<std::uint64_t>(acked,
                                                    std::uint64_t{s.last_seq(k, k_ack_size)} + 1);
                }
            }
        }
        return std::chrono::duration<double>(clock_type::now() - start).count();
    }
    std::uint64_t received = 0;
    while (received < o.iterations) {
        const std::size_t n = s.receive();
        std::uint32_t last = 0;
        bool any = false;
        for (std::size_t k = 0; k < n; ++k) {
            if (s.kind(k) == k_request) {
                last = s.last_seq(k, request);
                received += s.segments(k);
                any = true;
                // Nothing is sent again here: a datagram the kernel dropped (a receive buffer
                // too small for the window) ends the run rather than being acknowledged.
                if (std::uint64_t{last} + 1 != received) {
                    throw std::runtime_error(
                        "datagrams were lost: the receive buffer is too small for --window");
                }
            }
        }
        if (any) {
            s.queue(k_ack, last, k_ack_size);
            s.flush();
        }
    }
    return 0.0;
}

// Start-up, before anything is measured: B announces itself until A answers, so neither side
// sends into a port not bound yet, and neither read loop below sees a start-up datagram as
// traffic (they look only at requests and ACKs).
void meet(int fd, side& s, bool first, const options& o) {
    const auto deadline = clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                                                  std::chrono::duration<double>(o.timeout_s));
    std::array<unsigned char, k_max_datagram> d{};
    auto next = [&]() -> int {
        for (;;) {
            const ssize_t n = ::recv(fd, d.data(), d.size(), MSG_DONTWAIT);
            if (n > 0) {
                return d[0];
            }
            if (ndksim::bench::peer_failed()) {
                throw std::runtime_error("side B failed");
            }
            if (clock_type::now() > deadline) {
                throw std::runtime_error("the peer did not come up");
            }
            if (!first) {
                s.queue(k_hello, 0, k_ack_size);  // until A answers
                s.flush();
            }
            ::usleep(1000);
        }
    };
    if (first) {
        while (next() != k_hello) {
        }
        s.queue(k_start, 0, k_ack_size);
        s.flush();
        while (next() != k_started) {
        }
    } else {
        while (next() != k_start) {
        }
        s.queue(k_started, 0, k_ack_size);
        s.flush();
    }
}

double run_side(const options& o, bool first) {
    const auto mine = static_cast<std::uint16_t>(first ? o.port : o.port + 1);
    const auto peer = static_cast<std::uint16_t>(first ? o.port + 1 : o.port);
    const int fd = open_socket(mine);
    connect_to(fd, peer);
    side s(fd, o, o.mode == "rate");
    meet(fd, s, first, o);
    const double seconds = o.mode == "lat" ? ping_pong(s, o, first) : stream(s, o, first);
    ::close(fd);
    return seconds;
}

}  // namespace

int main(int argc, char** argv) {
    options o;
    std::string wire = "udp";
    std::size_t bulk_size = 1024 * 1024;
    CLI::App app{"The kernel's cost of an RC write's frames on loopback, without the simulator"};
    app.add_option("mode", o.mode,
                   "lat (one-way latency, us), rate (small writes per second) or bw (large "
                   "writes, MB/s)")
        ->required()
        ->check(CLI::IsMember({"lat", "rate", "bw"}));
    app.add_option("-p,--port", o.port, "A's port on 127.0.0.1; B takes the next one")
        ->required()
        ->check(CLI::Range(1024, 65534));
    app.add_option("-n,--iterations", o.iterations, "writes (round trips for lat)")
        ->check(CLI::Range(1, 100'000'000));
    app.add_option("-s,--size", o.size, "lat, rate: payload bytes of a write")
        ->check(CLI::Range(0, 1024));
    app.add_option("-w,--window", o.window, "rate, bw: writes outstanding at most")
        ->check(CLI::Range(1, 4096));
    app.add_option("--wire", wire, "bw: udp (datagrams) or tcp (records)")
        ->check(CLI::IsMember({"udp", "tcp"}));
    app.add_option("--bytes", bulk_size, "bw: bytes of a write")
        ->check(CLI::Range(std::size_t{1}, std::size_t{64} * 1024 * 1024));
    app.add_option("--timeout", o.timeout_s,
                   "seconds a side waits for a datagram before it gives up")
        ->check(CLI::Range(0.1, 600.0));
    CLI11_PARSE(app, argc, argv);
    const bool bulk = o.mode == "bw";
    ndksim::bench::bulk_options b;
    b.tcp = wire == "tcp";
    b.port = o.port;
    b.message = bulk_size;
    b.window = app.count("--window") > 0 ? o.window : b.window;
    b.messages = app.count("--iterations") > 0 ? o.iterations : b.messages;
    b.timeout_s = o.timeout_s;

    if (bulk) {
        try {
            ndksim::bench::bulk_check(b);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "bench_roce_floor: %s\n", e.what());
            return 1;
        }
    }
    const pid_t child = ::fork();
    if (child < 0) {
        std::perror("fork");
        return 1;
    }
    const bool a = child != 0;
    if (a) {
        ndksim::bench::watch_peer(child);
    } else {
        ndksim::bench::die_with_parent();
    }
    double seconds = 0;
    try {
        seconds = bulk ? ndksim::bench::bulk_side(b, a) : run_side(o, a);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_roce_floor (%s): %s\n", a ? "A" : "B", e.what());
        if (!a) {
            ::_exit(1);
        }
        ::kill(child, SIGKILL);
        ndksim::bench::peer_exit_status();
        return 1;
    }
    if (!a) {
        ::_exit(0);
    }
    const int status = ndksim::bench::peer_exit_status();
    if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "bench_roce_floor: side B failed\n");
        return 1;
    }
    if (bulk) {
        const double bytes = static_cast<double>(b.messages) * static_cast<double>(b.message);
        std::printf("%.0f\n", bytes / seconds / 1e6);  // MB/s
        return 0;
    }
    const double n = static_cast<double>(o.iterations);
    if (o.mode == "lat") {
        std::printf("%.3f\n", seconds / n / 2 * 1e6);  // one way, us
    } else {
        std::printf("%.0f\n", n / seconds);  // writes per second
    }
    return 0;
}
