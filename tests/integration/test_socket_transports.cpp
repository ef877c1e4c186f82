// SPDX-License-Identifier: MIT
// The socket transports on their own (no engine): the departure-time trailer reaches the
// receiver with its frame, frames not read yet are reported as pending, a TCP connection
// stops reading while the receive backlog is full and loses nothing, which the transport alone
// does not let move the receiver's clock (the engine does, once it matched the frame), a TCP
// connection to a peer that went away drops its frames (counted) and opens again once the peer is
// back, the datagrams a full UDP receive buffer loses are counted, the shared send path refuses a
// frame with no room for its trailer, and both refuse a deterministic scheduler.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <future>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "timing/scheduler.hpp"
#include "wire/codec.hpp"
#include "wire/icrc.hpp"
#include "wire/tcp_transport.hpp"
#include "wire/udp_transport.hpp"

namespace ndksim::wire {
namespace {

using namespace std::chrono_literals;

enum class kind { udp, tcp };

/// What a node's transport handed to its receiver.
struct inbox {
    std::mutex m;
    std::condition_variable cv;
    std::vector<std::uint32_t> psns;
    std::vector<timing::sim_time> arrivals;
    std::vector<timing::sim_time> departures;  ///< 0 for a frame without a trusted trailer

    bool wait_for(std::size_t n) {
        std::unique_lock lock(m);
        const bool ok = cv.wait_for(lock, 30s, [&] { return psns.size() >= n; });
        if (!ok) {
            ADD_FAILURE() << "timed out after 30 s waiting for frame " << n;
        }
        return ok;
    }
};

/// One adapter's end without an engine: a threaded scheduler, a transport and an inbox.
struct node {
    node(kind k, const ip_address& ip, std::uint16_t port)
        : sched({timing::run_mode::threaded, timing::poll_policy::block, "node"}),
          pool(frame_pool::create(16)) {
        auto rx = [this, ip](frame* f) {
            const decode_result r = decode_frame(std::span<const std::byte>(f->data, f->length),
                                                 flow{f->source, ip, roce_udp_port, roce_udp_port});
            std::lock_guard lock(box.m);
            EXPECT_TRUE(r.ok()) << decode_error_name(r.error);
            box.psns.push_back(r.ok() ? r.packet.headers.bth.psn : 0xFFFFFFFF);
            box.arrivals.push_back(f->arrival);
            box.departures.push_back(f->stamped ? f->departure : 0);
            if (hold) {
                held.push_back(f);  // the engine keeps it: the receive backlog grows
            } else {
                frame_pool::release(f);
            }
            box.cv.notify_all();
        };
        if (k == kind::udp) {
            auto t = std::make_unique<udp_transport>(ip, port, sched, rx, timing::nanoseconds(500));
            t->start();
            link = std::move(t);
        } else {
            auto t = std::make_unique<tcp_transport>(ip, port, sched, rx, timing::nanoseconds(500));
            t->start();
            link = std::move(t);
        }
    }

    /// Sends one SEND_ONLY frame with `psn` to `to`, leaving at `departure`.
    void send(transport::peer& to, const ip_address& to_ip, std::uint32_t psn,
              timing::sim_time departure) {
        packet_headers h;
        h.bth.op = opcode::rc_send_only;
        h.bth.dest_qp = 0x11;
        h.bth.psn = psn;
        const std::array<std::byte, 64> payload{};
        frame* f = pool->take();
        const encode_result r = encode_frame(
            h, payload, flow{link->local_address(), to_ip, roce_udp_port, roce_udp_port},
            std::span<std::byte>(f->data, sizeof f->data));
        ASSERT_TRUE(r.ok());
        f->length = static_cast<std::uint32_t>(r.frame_size);
        link->send(to, f, departure);
    }

    const socket_counters& stats() const { return link->socket_stats(); }

    /// Lets go of the frames held so far and holds no more.
    void let_go() {
        std::vector<frame*> frames;
        {
            std::lock_guard lock(box.m);
            hold = false;
            frames.swap(held);
        }
        for (frame* f : frames) {
            frame_pool::release(f);
        }
    }

    timing::scheduler sched;
    std::shared_ptr<frame_pool> pool;
    inbox box;
    bool hold = false;         ///< the receiver keeps the frames it is handed (under box.m)
    std::vector<frame*> held;  ///< under box.m
    std::unique_ptr<socket_transport> link;
};

/// Creates a node, moving on to the next port while `ip`:port is taken; returns the port used.
std::unique_ptr<node> make_node(kind k, const ip_address& ip, std::uint16_t& port) {
    for (int attempt = 0; attempt < 200; ++attempt, ++port) {
        try {
            return std::make_unique<node>(k, ip, port);
        } catch (const socket_setup_error& e) {
            if (e.code().value() != EADDRINUSE) {
                ADD_FAILURE() << e.what();
                return nullptr;
            }
        }
    }
    ADD_FAILURE() << "no free port";
    return nullptr;
}

/// Spins (yielding) until `counter` reaches `n`; fails loudly after 30 s.
bool wait_counter(const std::atomic<std::uint64_t>& counter, std::uint64_t n, const char* what) {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (counter.load() < n) {
        if (std::chrono::steady_clock::now() > deadline) {
            ADD_FAILURE() << "timed out after 30 s waiting for " << what << " to reach " << n;
            return false;
        }
        std::this_thread::yield();
    }
    return true;
}

/// Spins (yielding) until `flag` is set; fails loudly after 30 s.
bool wait_counter_flag(const std::atomic<bool>& flag, const char* what) {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (!flag.load()) {
        if (std::chrono::steady_clock::now() > deadline) {
            ADD_FAILURE() << "timed out after 30 s waiting for " << what;
            return false;
        }
        std::this_thread::yield();
    }
    return true;
}

const ip_address k_a = ip_address::v4(127, 0, 0, 5);
const ip_address k_b = ip_address::v4(127, 0, 0, 6);

std::uint16_t first_port() {
    return static_cast<std::uint16_t>(20000 + (static_cast<unsigned>(getpid()) * 11) % 30000);
}

/// Two nodes, a at k_a and b at k_b on one port, and a's peer for b.
struct node_pair {
    std::unique_ptr<node> a;
    std::unique_ptr<node> b;
    std::shared_ptr<transport::peer> to_b;
};

/// Creates a node_pair, moving on while either address:port is taken; to_b stays null after a
/// reported failure.
node_pair make_pair(kind k, std::uint16_t port) {
    node_pair p;
    for (int attempt = 0; attempt < 100 && !p.b; ++attempt, ++port) {
        p.a = make_node(k, k_a, port);
        if (p.a == nullptr) {
            return p;
        }
        try {
            p.b = std::make_unique<node>(k, k_b, port);
        } catch (const socket_setup_error&) {
            p.a.reset();
        }
    }
    if (p.b != nullptr) {
        p.to_b = p.a->link->resolve(k_b);
    }
    return p;
}

class SocketTransport : public ::testing::TestWithParam<kind> {};

TEST_P(SocketTransport, DepartureTrailerReachesTheReceiverWithItsFrameAndLeavesTheClock) {
    auto [a, b, to_b] = make_pair(GetParam(), first_port());
    ASSERT_NE(nullptr, to_b);
    // A sender 100 s ahead of the receiver, as a process that has run longer would be.
    const timing::sim_time departure = b->sched.now() + timing::seconds(100);
    a->send(*to_b, k_b, 7, departure);
    a->send(*to_b, k_b, 8, departure + timing::microseconds(1));
    ASSERT_TRUE(b->box.wait_for(2));
    std::lock_guard lock(b->box.m);
    EXPECT_EQ((std::vector<std::uint32_t>{7, 8}), b->box.psns) << "order kept";
    EXPECT_EQ((std::vector<timing::sim_time>{departure, departure + timing::microseconds(1)}),
              b->box.departures);
    EXPECT_EQ(departure + timing::nanoseconds(500), b->box.arrivals[0]);
    EXPECT_EQ(departure + timing::microseconds(1) + timing::nanoseconds(500), b->box.arrivals[1]);
    // Only the engine, once it matched a frame to a connection, moves the clock
    // (docs/wire-format.md, "Receiving"); SocketWire.AValidFrameFromThePeerMoves... shows it.
    EXPECT_LT(b->sched.now(), departure) << "the transport moved the receiver's clock";
    EXPECT_EQ(0U, b->stats().bad_frames.load());
}

// What the transport timer asks before it counts a timeout (docs/engine.md, "Transport
// timer"): frames that reached the socket while the engine thread was busy are reported as
// unread until the engine has read them.
TEST_P(SocketTransport, FramesTheEngineHasNotReadYetAreReportedAsPending) {
    auto [a, b, to_b] = make_pair(GetParam(), first_port() + 500);
    ASSERT_NE(nullptr, to_b);
    // The first frame opens the way (over TCP, b accepts the connection on its engine thread).
    a->send(*to_b, k_b, 1, a->sched.now());
    ASSERT_TRUE(b->box.wait_for(1));

    // b's engine thread is busy in a task while the second frame arrives.
    std::atomic<bool> busy{false};
    std::promise<bool> seen_unread;
    b->sched.post([&] {
        busy = true;
        const auto deadline = std::chrono::steady_clock::now() + 30s;
        bool pending = false;
        while (!(pending = b->link->input_pending()) &&
               std::chrono::steady_clock::now() < deadline) {
            std::this_thread::yield();
        }
        seen_unread.set_value(pending);
    });
    ASSERT_TRUE(wait_counter_flag(busy, "b's engine to be busy"));
    a->send(*to_b, k_b, 2, a->sched.now());
    EXPECT_TRUE(seen_unread.get_future().get()) << "the frame in b's socket was not reported";

    // Once the engine has read it, nothing is pending.
    ASSERT_TRUE(b->box.wait_for(2));
    std::promise<bool> after;
    b->sched.post([&] { after.set_value(b->link->input_pending()); });
    EXPECT_FALSE(after.get_future().get());
}

TEST_P(SocketTransport, RefusesADeterministicScheduler) {
    // Socket handlers run on an engine thread; a deterministic scheduler has none.
    timing::scheduler sched({timing::run_mode::deterministic, timing::poll_policy::block, "det"});
    const char* expected = GetParam() == kind::udp ? "the UDP wire needs a threaded adapter"
                                                   : "the TCP wire needs a threaded adapter";
    try {
        if (GetParam() == kind::udp) {
            udp_transport t(
                k_a, first_port(), sched, [](frame* f) { frame_pool::release(f); }, 0);
        } else {
            tcp_transport t(
                k_a, first_port(), sched, [](frame* f) { frame_pool::release(f); }, 0);
        }
        ADD_FAILURE() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(nullptr, std::strstr(e.what(), expected)) << e.what();
    }
}

TEST_P(SocketTransport, AFrameWithNoRoomForTheTrailerIsCountedAsBadAndNotSent) {
    std::uint16_t port = first_port() + 10000;
    std::unique_ptr<node> a = make_node(GetParam(), k_a, port);
    ASSERT_NE(nullptr, a);
    auto to_b = a->link->resolve(k_b);
    ASSERT_NE(nullptr, to_b);
    frame* f = a->pool->take();
    f->length = static_cast<std::uint32_t>(sizeof f->data - socket_trailer_size + 1);
    a->link->send(*to_b, f, a->sched.now());
    EXPECT_EQ(1U, a->stats().bad_frames.load());
    EXPECT_EQ(0U, a->link->counters().frames_sent.load());
    EXPECT_EQ(0U, a->link->counters().bytes_sent.load());
}

INSTANTIATE_TEST_SUITE_P(Wires, SocketTransport, ::testing::Values(kind::udp, kind::tcp),
                         [](const ::testing::TestParamInfo<kind>& p) {
                             return std::string(p.param == kind::udp ? "Udp" : "Tcp");
                         });

TEST(TcpTransport, ABrokenConnectionDropsItsFramesAndOpensAgainOnTheNextSend) {
    std::uint16_t port = first_port() + 5000;
    std::unique_ptr<node> b = make_node(kind::tcp, k_b, port);
    ASSERT_NE(nullptr, b);
    std::uint16_t a_port = port;
    std::unique_ptr<node> a = make_node(kind::tcp, k_a, a_port);
    ASSERT_NE(nullptr, a);
    ASSERT_EQ(port, a_port) << "a and b must share the port";
    auto to_b = a->link->resolve(k_b);
    a->send(*to_b, k_b, 1, a->sched.now());
    ASSERT_TRUE(b->box.wait_for(1));
    EXPECT_EQ(1U, a->stats().connections_opened.load());
    // The peer goes away: a sees its connection end.
    b.reset();
    ASSERT_TRUE(wait_counter(a->stats().send_errors, 1, "a's errors after the peer left"));
    // Nobody listens: the connect is refused and the queued frame is dropped, counted.
    a->send(*to_b, k_b, 2, a->sched.now());
    ASSERT_TRUE(wait_counter(a->stats().frames_dropped, 1, "a's dropped frames"));
    // The peer is back on the same address and port: the next send opens a new connection.
    b = std::make_unique<node>(kind::tcp, k_b, port);
    a->send(*to_b, k_b, 3, a->sched.now());
    ASSERT_TRUE(b->box.wait_for(1));
    std::lock_guard lock(b->box.m);
    EXPECT_EQ(std::vector<std::uint32_t>{3}, b->box.psns);
    EXPECT_EQ(2U, a->stats().connections_opened.load());
}

/// The kernel's count of datagrams dropped on the UDP socket bound to 127.0.0.6:`port`: the
/// last column of its line in /proc/net/udp (addresses in hex, the IPv4 one in host order).
std::uint64_t kernel_drops(std::uint16_t port) {
    char local[32];
    std::snprintf(local, sizeof local, "%08X:%04X", 0x0600007FU, port);
    std::ifstream table("/proc/net/udp");
    std::string line;
    while (std::getline(table, line)) {
        std::istringstream fields(line);
        std::string slot;
        std::string address;
        fields >> slot >> address;
        if (address == local) {
            std::string last;
            for (std::string field; fields >> field;) {
                last = field;
            }
            return std::stoull(last);
        }
    }
    ADD_FAILURE() << "no UDP socket on " << local << " in /proc/net/udp";
    return 0;
}

// Outside synchronized time a TCP connection stops reading while its adapter's receive backlog
// is full, and TCP's window holds the sender back: nothing is dropped, and once the engine lets
// go every frame arrives, in order.
TEST(TcpTransport, AFullReceiveBacklogPausesReadingAndLosesNothing) {
    auto [a, b, to_b] = make_pair(kind::tcp, first_port() + 1000);
    ASSERT_NE(nullptr, to_b);
    {
        std::lock_guard lock(b->box.m);
        b->hold = true;
    }
    constexpr std::uint32_t n = k_rx_backlog_frames + 1000;
    for (std::uint32_t psn = 0; psn < n; ++psn) {
        a->send(*to_b, k_b, psn, a->sched.now());
    }
    ASSERT_TRUE(wait_counter(b->stats().reads_paused, 1, "b to put a read off"));
    {
        std::lock_guard lock(b->box.m);
        EXPECT_LT(b->box.psns.size(), n) << "b read past a full backlog";
    }
    EXPECT_EQ(0U, b->stats().backlog_dropped.load());
    b->let_go();
    ASSERT_TRUE(b->box.wait_for(n));
    std::lock_guard lock(b->box.m);
    ASSERT_EQ(n, b->box.psns.size());
    for (std::uint32_t psn = 0; psn < n; ++psn) {
        ASSERT_EQ(psn, b->box.psns[psn]) << "order kept";
    }
    EXPECT_EQ(0U, b->stats().backlog_dropped.load());
}

TEST(UdpTransport, DatagramsAFullReceiveBufferLosesAreCountedAsOverruns) {
    std::uint16_t port = first_port() + 9000;
    std::unique_ptr<node> b = make_node(kind::udp, k_b, port);
    ASSERT_NE(nullptr, b);
    // b's engine thread waits here, so nothing reads its socket while the burst arrives.
    std::promise<void> go;
    std::shared_future<void> released = go.get_future().share();
    b->sched.post([released] { released.wait(); });
    const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(port);
    to.sin_addr.s_addr = htonl(0x7F000006);
    const auto* addr = reinterpret_cast<const sockaddr*>(&to);
    // Longer than any frame, so each is refused as bad_size and counted; eight times
    // udp_socket_buffer_bytes in all, four times the largest buffer the transport can be
    // granted (the kernel doubles the request for its bookkeeping).
    std::vector<unsigned char> junk(max_socket_body + 100, 0xAB);
    const std::uint64_t burst = 8 * udp_socket_buffer_bytes / 4096;
    for (std::uint64_t i = 0; i < burst; ++i) {
        ASSERT_EQ(static_cast<ssize_t>(junk.size()),
                  ::sendto(fd, junk.data(), junk.size(), 0, addr, sizeof to));
    }
    const std::uint64_t dropped = kernel_drops(port);
    ASSERT_GT(dropped, 0U) << "the burst fit the receive buffer";
    go.set_value();
    // Every datagram the kernel kept is read; then one more, which carries the drop count.
    ASSERT_TRUE(wait_counter(b->stats().bad_frames, burst - dropped, "the burst to be read"));
    ASSERT_EQ(static_cast<ssize_t>(junk.size()),
              ::sendto(fd, junk.data(), junk.size(), 0, addr, sizeof to));
    ASSERT_TRUE(wait_counter(b->stats().bad_frames, burst - dropped + 1, "the last datagram"));
    ::close(fd);
    EXPECT_EQ(dropped, b->stats().receive_overruns.load());
    EXPECT_EQ(burst + 1, b->stats().bad_frames.load() + b->stats().receive_overruns.load());
}

}  // namespace
}  // namespace ndksim::wire
