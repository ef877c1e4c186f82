// SPDX-License-Identifier: MIT
// Every data-path operation between two threaded adapters over real sockets on the loopback
// interface, once over UDP and once over TCP: connection with private data, RDMA writes of every
// size class, reads, sends, send-and-invalidate, memory windows, disconnect, and bad input
// from a plain socket that is counted and dropped while the connection keeps working: bodies
// that are no frame, forged frames whose departure trailer must not move the clock, and
// valid frames whose departure lies beyond wire::max_departure_lead.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <future>
#include <span>
#include <sstream>
#include <thread>
#include <vector>

#include <spdlog/sinks/ostream_sink.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "api/abi.hpp"
#include "api/adapter_state.hpp"
#include "core/connector.hpp"
#include "core/qp.hpp"
#include "integration/socket_pair.hpp"
#include "nic/engine.hpp"
#include "nic/qp_context.hpp"
#include "util/log.hpp"
#include "wire/cm_proto.hpp"
#include "wire/codec.hpp"
#include "wire/opcode_table.hpp"
#include "wire/socket_common.hpp"
#include "wire/socket_transport.hpp"

namespace ndksim::integration {
namespace {

class SocketWire : public SocketPair {
  protected:
    /// The socket counters of side `s`'s transport.
    const wire::socket_counters& socket_stats(pair_side& s) {
        return dynamic_cast<wire::socket_transport&>(*s.nic->link.base).socket_stats();
    }

    /// Side `s`'s engine drops of frames that failed to decode with `cause`.
    std::uint64_t bad_frames(pair_side& s, wire::decode_error cause) {
        return s.nic->engine->counters().bad_frames[static_cast<std::size_t>(cause)].load();
    }

    /// Side `s`'s simulated clock [ps].
    timing::sim_time now(pair_side& s) { return s.nic->dev.sched().now(); }

    /// Returns once side `s`'s engine has run every task due so far. A write's completion at
    /// a follows the placement at b only through the sockets, an order TSan cannot see; a task
    /// run on b's engine afterwards orders b's placement before the test's reads.
    void settle(pair_side& s) {
        auto ran = std::make_shared<bool>(false);
        board* b = &board_;
        s.nic->dev.sched().post([ran, b] {
            std::lock_guard lock(b->m);
            *ran = true;
            b->cv.notify_all();
        });
        board_.wait([&] { return *ran; }, "a task on the peer's engine");
    }

    /// A send of `length` bytes from a_.buf[src] into a receive of b_.buf[dst]; checks both
    /// completions and the bytes.
    void send_and_check(std::size_t src, std::size_t dst, ULONG length, unsigned seed) {
        fill(a_.buf.bytes + src, length, seed);
        const std::size_t na = result_count(a_) + 1;
        const std::size_t nb = result_count(b_) + 1;
        NDK_SGE r = b_.buf.sge(dst, length);
        ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(b_.qp, nullptr, &r, 1));
        NDK_SGE s = a_.buf.sge(src, length);
        ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkSend(a_.qp, nullptr, &s, 1, 0));
        EXPECT_NT_SUCCESS(result(a_, na, "the send's completion").Status);
        const NDK_RESULT_EX got = result(b_, nb, "the receive's completion");
        EXPECT_NT_SUCCESS(got.Status);
        EXPECT_EQ(length, got.BytesTransferred);
        EXPECT_EQ(0, std::memcmp(a_.buf.bytes + src, b_.buf.bytes + dst, length));
    }
};

TEST_P(SocketWire, ConnectionCarriesPrivateDataBothWaysOverTheSockets) {
    // SetUp checked the private data of both sides; the frames went through the sockets.
    EXPECT_GT(a_.nic->link.base->counters().frames_sent.load(), 0U);
    EXPECT_GT(b_.nic->link.base->counters().frames_received.load(), 0U);
    EXPECT_EQ(0U, socket_stats(a_).bad_frames.load());
    EXPECT_EQ(0U, socket_stats(b_).bad_frames.load());
}

TEST_P(SocketWire, WritesOfEverySizeArriveIntact) {
    struct shape {
        ULONG length;
        ULONG flags;
        const char* what;
    };
    const shape shapes[] = {{64, 0, "small"},
                            {100, NDK_OP_FLAG_INLINE, "inline"},
                            {3 * 4096 + 100, 0, "multi-MTU"},
                            {1024 * 1024, 0, "1 MiB"}};
    std::size_t offset = 0;
    unsigned seed = 1;
    for (const shape& s : shapes) {
        fill(a_.buf.bytes + offset, s.length, seed++);
        EXPECT_NT_SUCCESS(
            write_from_a(offset, s.length, b_.buf.address() + offset, b_.buf.remote_token, s.flags))
            << s.what;
        settle(b_);
        EXPECT_EQ(0, std::memcmp(a_.buf.bytes + offset, b_.buf.bytes + offset, s.length)) << s.what;
        offset += (s.length + 4095) / 4096 * 4096;
    }
}

// Outside synchronized time both wires keep a host window (docs/engine.md, "Host window"):
// twelve writes of 1 MiB outstanding (3,072 packets) exceed TCP's and UDP's, and every byte
// still arrives.
TEST_P(SocketWire, ADeepQueueOfLargeWritesPassesThroughTheHostWindow) {
    EXPECT_EQ(a_.nic->engine->config().host_window_packets, GetParam() == NDKSIM_WIRE_TCP
                                                                ? nic::k_tcp_host_window_packets
                                                                : nic::k_udp_host_window_packets);
    constexpr ULONG k_length = 1024 * 1024;
    constexpr std::size_t k_writes = 12;
    fill(a_.buf.bytes, k_length, 21);
    ASSERT_NO_FATAL_FAILURE(write_queue_a_to_b(k_writes, k_length));
    settle(b_);
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes, k_length));
}

// The engine thread of a is kept busy, as by a slow host or a sanitizer build, from right after
// its write reached b (a frame leaves a's socket once the run of events that built it has
// ended, so the busy task lets a's event loop turn until b's link has the frame) until b's ACK
// has left and three ACK timeouts have passed: the ACK waits unread in a's socket while the
// transport timer falls due. The timer then runs more than a whole timeout late, which says the
// engine was starved, not that the wire was silent: the interval restarts (docs/engine.md,
// "Reliability"), the ACK is read, and nothing is sent again. The busy span ends on those events,
// not on a fixed time, so a slow peer cannot make the timer fall due while a is still spinning.
TEST_P(SocketWire, AStarvedEngineThreadIsNotTakenForASilentWire) {
    constexpr ULONG length = 4096;
    fill(a_.buf.bytes, length, 5);
    const std::size_t n = result_count(a_) + 1;
    nic::engine_counters& counters = a_.nic->engine->counters();
    nic::engine_counters& peer = b_.nic->engine->counters();
    const std::uint64_t timeouts_before = counters.ack_timeouts.load();
    const std::uint64_t resent_before = counters.retransmitted_packets.load();
    // Every frame of the connection's setup reached b before its accept completed.
    const std::atomic<std::uint64_t>& arrived = b_.nic->link.base->counters().frames_received;
    const std::uint64_t sent_before = arrived.load();
    const std::uint64_t acks_before = peer.acks_sent.load();
    const auto timeout =
        std::chrono::microseconds(a_.nic->engine->config().ack_timeout / 1'000'000);
    timing::scheduler& sched = a_.nic->dev.sched();
    std::atomic<bool> starved_long_enough{false};
    // Spins on a's engine thread once the write reached b; until then it yields to the engine's
    // other tasks by posting itself again.
    struct busy {
        timing::scheduler* sched;
        const std::atomic<std::uint64_t>* b_arrived;
        nic::engine_counters* b;
        std::uint64_t sent_before;
        std::uint64_t acks_before;
        std::chrono::microseconds timeout;
        std::atomic<bool>* done;
        void operator()() const {
            if (b_arrived->load() == sent_before) {
                sched->post_after(0, *this);
                return;
            }
            const auto start = std::chrono::steady_clock::now();
            const auto cap = start + board::k_timeout;
            for (auto now = start; now < cap; now = std::chrono::steady_clock::now()) {
                if (b->acks_sent.load() != acks_before && now - start >= 3 * timeout) {
                    done->store(true);
                    return;
                }
            }
        }
    };
    std::promise<NTSTATUS> posted;
    boost::asio::post(sched.io(), [&] {
        NDK_SGE sge = a_.buf.sge(0, length);
        posted.set_value(a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &sge, 1, b_.buf.address(),
                                                   b_.buf.remote_token, 0));
        sched.post_after(0, busy{&sched, &arrived, &peer, sent_before, acks_before, timeout,
                                 &starved_long_enough});
    });
    ASSERT_NT_SUCCESS(posted.get_future().get());
    EXPECT_NT_SUCCESS(result(a_, n, "the write's completion").Status);
    ASSERT_TRUE(starved_long_enough.load())
        << "b's ACK did not leave within " << board::k_timeout.count() << " s";
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes, length));
    EXPECT_EQ(timeouts_before, counters.ack_timeouts.load()) << "no retry was counted";
    EXPECT_EQ(resent_before, counters.retransmitted_packets.load()) << "nothing was sent again";
}

TEST_P(SocketWire, ReadsBringTheRemoteBytes) {
    constexpr ULONG size = 1024 * 1024;
    fill(b_.buf.bytes, size, 42);
    settle(b_);  // b's engine reads these bytes, reached from here only through a's socket
    NDK_SGE r = a_.buf.sge(2 * size, size);
    ASSERT_NT_SUCCESS(
        a_.qp->Dispatch->NdkRead(a_.qp, nullptr, &r, 1, b_.buf.address(), b_.buf.remote_token, 0));
    const NDK_RESULT_EX got = result(a_, 1, "the read's completion");
    EXPECT_NT_SUCCESS(got.Status);
    EXPECT_EQ(NdkOperationTypeRead, got.Type);
    EXPECT_EQ(0, std::memcmp(b_.buf.bytes, a_.buf.bytes + 2 * size, size));
}

TEST_P(SocketWire, SendsArriveIntactAndInOrder) {
    for (unsigned i = 0; i < 50; ++i) {
        send_and_check(i * 8192, i * 8192, 64 + i * 97, i);
        ASSERT_FALSE(HasFailure()) << "send " << i;
    }
}

TEST_P(SocketWire, SendAndInvalidateInvalidatesTheWindowAtTheReceiver) {
    NDK_MW* mw = nullptr;
    const UINT32 token = bind_window_on_b(0, 65536, mw);
    ASSERT_NE(nullptr, mw);
    const std::size_t nb = result_count(b_) + 1;
    NDK_SGE r = b_.buf.sge(131072, 4096);
    ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkReceive(b_.qp, nullptr, &r, 1));
    fill(a_.buf.bytes, 200, 3);
    NDK_SGE s = a_.buf.sge(0, 200);
    ASSERT_NT_SUCCESS(a_.qp->Dispatch->NdkSendAndInvalidate(a_.qp, nullptr, &s, 1, 0, token));
    EXPECT_NT_SUCCESS(result(a_, 1, "the send's completion").Status);
    const NDK_RESULT_EX got = result(b_, nb, "the receive's completion");
    EXPECT_NT_SUCCESS(got.Status);
    EXPECT_EQ(NdkOperationTypeReceiveAndInvalidate, got.Type);
    EXPECT_EQ(static_cast<ULONG_PTR>(token), got.TypeSpecificCompletionOutput);
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes + 131072, 200));
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, write_from_a(0, 64, b_.buf.address(), token));
}

TEST_P(SocketWire, BoundWindowTakesAWriteAndRefusesItAfterInvalidate) {
    NDK_MW* mw = nullptr;
    const UINT32 token = bind_window_on_b(65536, 65536, mw);
    ASSERT_NE(nullptr, mw);
    fill(a_.buf.bytes, 4096, 5);
    EXPECT_NT_SUCCESS(write_from_a(0, 4096, b_.buf.address() + 65536, token));
    settle(b_);
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes + 65536, 4096));
    const std::size_t nb = result_count(b_) + 1;
    ASSERT_NT_SUCCESS(b_.qp->Dispatch->NdkInvalidate(b_.qp, mw, &mw->Header, 0));
    const NDK_RESULT_EX inv = result(b_, nb, "the invalidate's completion");
    EXPECT_NT_SUCCESS(inv.Status);
    EXPECT_EQ(NdkOperationTypeInvalidate, inv.Type);
    EXPECT_NT_STATUS(STATUS_ACCESS_VIOLATION, write_from_a(0, 64, b_.buf.address() + 65536, token));
}

TEST_P(SocketWire, DisconnectReachesThePeer) {
    ASSERT_NO_FATAL_FAILURE(disconnect_a_then_b());
    std::lock_guard lock(board_.m);
    EXPECT_EQ(0, a_.disconnect_events);
}

/// A plain socket of `type` on `host` (127.0.0.3, a stranger, unless told) with a receive
/// timeout, so a blocking read fails loudly instead of hanging.
int plain_socket(int type, std::uint32_t host = 0x7F000003) {
    const int fd = ::socket(AF_INET, type, 0);
    timeval tv{};
    tv.tv_sec = 30;
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in local{};
    local.sin_family = AF_INET;
    local.sin_addr.s_addr = htonl(host);
    ::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local);
    return fd;
}

sockaddr_in adapter_b(USHORT port) {
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(port);
    to.sin_addr.s_addr = htonl(0x7F000002);
    return to;
}

/// Opens a TCP connection to adapter b from a plain socket, sends a length prefix out of
/// bounds on it and returns once b closed that connection (only): the read sees the end of
/// the stream.
void send_bad_prefix(USHORT port) {
    const sockaddr_in to = adapter_b(port);
    const int fd = plain_socket(SOCK_STREAM);
    ASSERT_GE(fd, 0);
    EXPECT_EQ(0, ::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to));
    const unsigned char prefix[4] = {0xFF, 0xFF, 0xFF, 0xF0};
    EXPECT_EQ(4, ::send(fd, prefix, sizeof prefix, MSG_NOSIGNAL));
    char byte = 0;
    EXPECT_EQ(0, ::recv(fd, &byte, 1, 0)) << "b did not close the bad connection";
    ::close(fd);
}

TEST_P(SocketWire, BadInputFromAPlainSocketIsCountedAndDroppedAndTheConnectionWorks) {
    const sockaddr_in to = adapter_b(port_);
    if (GetParam() == NDKSIM_WIRE_UDP) {
        const int fd = plain_socket(SOCK_DGRAM);
        ASSERT_GE(fd, 0);
        const unsigned char tiny[5] = {1, 2, 3, 4, 5};
        unsigned char junk[100];
        std::memset(junk, 0xFF, sizeof junk);  // opcode 0xFF: no RoCEv2 packet
        ASSERT_EQ(5, ::sendto(fd, tiny, sizeof tiny, 0, reinterpret_cast<const sockaddr*>(&to),
                              sizeof to));
        ASSERT_EQ(100, ::sendto(fd, junk, sizeof junk, 0, reinterpret_cast<const sockaddr*>(&to),
                                sizeof to));
        ::close(fd);
        // b reads its socket in order, so once a's send has arrived both datagrams were seen.
        send_and_check(0, 0, 300, 9);
        // The 5 bytes are no frame (the transport drops them); the 100 are a body of frame
        // size that the codec refuses, which the engine counts by cause as on any link.
        EXPECT_EQ(1U, socket_stats(b_).bad_frames.load());
        EXPECT_EQ(1U, bad_frames(b_, wire::decode_error::bad_version));
    } else {
        send_bad_prefix(port_);
        EXPECT_EQ(1U, socket_stats(b_).bad_records.load());
        send_and_check(0, 0, 300, 9);
    }
    send_and_check(4096, 4096, 5000, 10);
}

// Log lines of the library at warning level and above, kept from before the adapters exist
// until after they are gone (the library's logger is shared by the whole process).
class SocketWireLogged : public SocketWire {
  protected:
    void SetUp() override {
        sink_ = std::make_shared<spdlog::sinks::ostream_sink_mt>(lines_);
        log::get().sinks().push_back(sink_);
        SocketWire::SetUp();
    }
    void TearDown() override {
        SocketWire::TearDown();
        auto& sinks = log::get().sinks();
        sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
    }
    /// The lines logged so far that contain `text`.
    std::size_t lines_with(const std::string& text) {
        log::get().flush();
        std::istringstream in(lines_.str());
        std::size_t n = 0;
        for (std::string line; std::getline(in, line);) {
            n += line.find(text) != std::string::npos ? 1 : 0;
        }
        return n;
    }
    std::ostringstream lines_;
    std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
};

TEST_P(SocketWireLogged, LengthPrefixesOutOfBoundsAreLoggedOnceAndCountedEachTime) {
    constexpr int k_connections = 5;
    for (int i = 0; i < k_connections; ++i) {
        send_bad_prefix(port_);
    }
    EXPECT_EQ(static_cast<std::uint64_t>(k_connections), socket_stats(b_).bad_records.load());
    EXPECT_EQ(1U, lines_with("is out of bounds"));
    send_and_check(0, 0, 300, 17);
}

// A length prefix is TCP's.
INSTANTIATE_TEST_SUITE_P(Wires, SocketWireLogged, ::testing::Values(NDKSIM_WIRE_TCP), wire_name);

/// Yields until `done()` holds; fails naming `what` after 30 s.
template <class Pred>
bool wait_until(Pred done, const char* what) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline) {
            ADD_FAILURE() << "timed out after 30 s waiting for " << what;
            return false;
        }
        std::this_thread::yield();
    }
    return true;
}

/// A SEND_ONLY to QP 0x7777, which b does not have.
wire::packet_headers send_to_no_qp() {
    wire::packet_headers h;
    h.bth.op = wire::opcode::rc_send_only;
    h.bth.dest_qp = 0x7777;
    return h;
}

/// The socket body of `frame` (one encoded frame): the frame, then the trailer carrying
/// `departure`; over TCP the record's length prefix goes first.
std::vector<unsigned char> socket_body(std::span<const std::byte> frame, timing::sim_time departure,
                                       bool tcp) {
    const std::size_t body = frame.size() + wire::socket_trailer_size;
    std::vector<unsigned char> out(tcp ? 4 : 0);
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i] = static_cast<unsigned char>(body >> (8 * (3 - i)));
    }
    for (const std::byte b : frame) {
        out.push_back(std::to_integer<unsigned char>(b));
    }
    for (int i = 7; i >= 0; --i) {
        out.push_back(static_cast<unsigned char>(departure >> (8 * i)));
    }
    return out;
}

/// The flow from IPv4 host `from` (host byte order) to adapter b (127.0.0.2).
wire::flow flow_to_b(std::uint32_t from) {
    return wire::flow{
        wire::ip_address::v4(static_cast<std::uint8_t>(from >> 24),
                             static_cast<std::uint8_t>(from >> 16),
                             static_cast<std::uint8_t>(from >> 8), static_cast<std::uint8_t>(from)),
        wire::ip_address::v4(127, 0, 0, 2)};
}

/// A socket body from `from` (127.0.0.3, a stranger, unless told) to adapter b (127.0.0.2): the
/// packet `h` with 32 bytes of payload and its ICRC over that flow (damaged when
/// `break_icrc`), then the trailer carrying `departure`. Over TCP the record's length prefix
/// goes first.
std::vector<unsigned char> forged_body(timing::sim_time departure, bool break_icrc, bool tcp,
                                       const wire::packet_headers& h = send_to_no_qp(),
                                       std::uint32_t from = 0x7F000003) {
    const std::array<std::byte, 32> payload{};
    std::array<std::byte, 256> frame{};
    const wire::encode_result r = wire::encode_frame(h, payload, flow_to_b(from), frame);
    EXPECT_TRUE(r.ok());
    if (break_icrc) {
        frame[r.frame_size - 1] ^= std::byte{0x01};
    }
    return socket_body(std::span<const std::byte>(frame).first(r.frame_size), departure, tcp);
}

/// Sends `body` to adapter b from a plain socket on `from` (127.0.0.3 unless told): one
/// datagram, or one record on a new TCP connection. Over TCP returns the connected socket (the
/// caller closes it), over UDP -1.
int send_forged(int wire_kind, USHORT port, const std::vector<unsigned char>& body,
                std::uint32_t from = 0x7F000003) {
    const sockaddr_in to = adapter_b(port);
    const auto* addr = reinterpret_cast<const sockaddr*>(&to);
    const bool tcp = wire_kind == NDKSIM_WIRE_TCP;
    const int fd = plain_socket(tcp ? SOCK_STREAM : SOCK_DGRAM, from);
    EXPECT_GE(fd, 0);
    const auto size = static_cast<ssize_t>(body.size());
    if (tcp) {
        EXPECT_EQ(0, ::connect(fd, addr, sizeof to));
        EXPECT_EQ(size, ::send(fd, body.data(), body.size(), MSG_NOSIGNAL));
        return fd;
    }
    EXPECT_EQ(size, ::sendto(fd, body.data(), body.size(), 0, addr, sizeof to));
    ::close(fd);
    return -1;
}

TEST_P(SocketWire, AForgedFrameWithABadIcrcNeverMovesTheClockAndIsCountedByCause) {
    const bool tcp = GetParam() == NDKSIM_WIRE_TCP;
    // Far beyond any clock and beyond the bound: had the trailer been read, the frame would
    // have been refused as a bad departure instead.
    const timing::sim_time forged = timing::sim_time{1} << 63;
    const int fd = send_forged(GetParam(), port_, forged_body(forged, true, tcp));
    ASSERT_TRUE(wait_until([&] { return bad_frames(b_, wire::decode_error::bad_icrc) == 1; },
                           "b's engine to drop the forged frame as bad_icrc"));
    EXPECT_LT(now(b_), wire::max_departure_lead) << "the forged trailer moved b's clock";
    EXPECT_EQ(0U, socket_stats(b_).bad_frames.load());
    EXPECT_EQ(0U, socket_stats(b_).departures_refused.load());
    EXPECT_EQ(0U, b_.nic->engine->counters().frames_for_unknown_qp.load());
    if (tcp) {
        ::close(fd);
    }
    send_and_check(0, 0, 300, 11);
}

TEST_P(SocketWire, AValidFrameFromAStrangerLeavesTheClock) {
    const bool tcp = GetParam() == NDKSIM_WIRE_TCP;
    // As a process that started 100 s earlier would stamp it; but it comes from an address
    // that is no peer of b's, for a QP b does not have.
    const timing::sim_time departure = now(b_) + timing::seconds(100);
    const int fd = send_forged(GetParam(), port_, forged_body(departure, false, tcp));
    ASSERT_TRUE(
        wait_until([&] { return b_.nic->engine->counters().frames_for_unknown_qp.load() == 1; },
                   "b's engine to drop the frame for QP 0x7777"));
    EXPECT_LT(now(b_), departure) << "a stranger's frame moved b's clock";
    EXPECT_EQ(0U, bad_frames(b_, wire::decode_error::bad_icrc));
    EXPECT_EQ(0U, socket_stats(b_).departures_refused.load());
    if (tcp) {
        ::close(fd);
    }
    send_and_check(0, 0, 300, 12);
}

TEST_P(SocketWire, AValidFrameFromThePeerMovesTheClockToItsDepartureTime) {
    const bool tcp = GetParam() == NDKSIM_WIRE_TCP;
    send_and_check(0, 0, 300, 14);
    // A repeat of a's last SEND to b's QP, from a's address: b matches it to the connection
    // (address and QP), moves its clock, and answers it as a duplicate.
    core::qp& q = *api::from_ndk<core::qp>(b_.qp, core::object_kind::qp, "socket wire test");
    wire::packet_headers h;
    h.bth.op = wire::opcode::rc_send_only;
    h.bth.dest_qp = q.qpn();
    const timing::sim_time departure = now(b_) + timing::seconds(100);
    std::uint64_t duplicates = 0;
    std::promise<void> read;
    boost::asio::post(b_.nic->dev.sched().io(), [&] {
        h.bth.psn = wire::psn_add(nic::context_of(q).resp.expected_psn, wire::psn_mask);
        duplicates = b_.nic->engine->counters().duplicate_packets.load();
        read.set_value();
    });
    read.get_future().wait();
    const int fd = send_forged(GetParam(), port_, forged_body(departure, false, tcp, h, 0x7F000001),
                               0x7F000001);
    ASSERT_TRUE(wait_until(
        [&] { return b_.nic->engine->counters().duplicate_packets.load() == duplicates + 1; },
        "b's engine to take the repeated SEND as a duplicate"));
    EXPECT_GE(now(b_), departure);
    if (tcp) {
        ::close(fd);
    }
    send_and_check(0, 0, 300, 15);
}

TEST_P(SocketWire, ADepartureBeyondTheBoundIsRefusedAndOverTcpEndsItsConnection) {
    const bool tcp = GetParam() == NDKSIM_WIRE_TCP;
    const timing::sim_time start = now(b_);
    const timing::sim_time departure = start + wire::max_departure_lead + timing::seconds(1);
    const int fd = send_forged(GetParam(), port_, forged_body(departure, false, tcp));
    ASSERT_TRUE(wait_until([&] { return socket_stats(b_).departures_refused.load() == 1; },
                           "b to refuse the departure"));
    EXPECT_LT(now(b_), start + wire::max_departure_lead) << "the refused trailer moved b's clock";
    if (tcp) {
        // b closed that connection (only): the read sees the end of the stream.
        char byte = 0;
        EXPECT_EQ(0, ::recv(fd, &byte, 1, 0)) << "b did not close the connection";
        ::close(fd);
    }
    EXPECT_EQ(0U, b_.nic->engine->counters().frames_for_unknown_qp.load()) << "it was delivered";
    EXPECT_EQ(0U, socket_stats(b_).bad_frames.load());
    // The connection between a and b (its own TCP connection) goes on.
    send_and_check(0, 0, 300, 13);
    ndksim_adapter_stats stats{};
    stats.size = sizeof stats;
    ASSERT_NT_SUCCESS(ndksim_adapter_get_stats(b_.nic, &stats));
    EXPECT_EQ(1U, stats.socket_departures_refused);
}

// A stranger's far-future stamp before anyone connects: had it moved b's clock, every frame b
// sends afterwards would be refused by a as departing beyond max_departure_lead, and the
// connection below would never complete.
class SocketWireStrangerFirst : public SocketWire {
  protected:
    void SetUp() override { ASSERT_TRUE(create_adapters()); }
};

TEST_P(SocketWireStrangerFirst, AFarFutureStampFromAStrangerDoesNotStopALaterConnect) {
    const bool tcp = GetParam() == NDKSIM_WIRE_TCP;
    const timing::sim_time start = now(b_);
    const timing::sim_time departure = start + wire::max_departure_lead - timing::seconds(1);
    const int fd = send_forged(GetParam(), port_, forged_body(departure, false, tcp));
    ASSERT_TRUE(
        wait_until([&] { return b_.nic->engine->counters().frames_for_unknown_qp.load() == 1; },
                   "b's engine to drop the frame for QP 0x7777"));
    ASSERT_LT(now(b_), start + timing::seconds(100)) << "a stranger's frame moved b's clock";
    EXPECT_EQ(0U, socket_stats(b_).departures_refused.load());
    if (tcp) {
        ::close(fd);
    }
    open_and_connect();
    send_and_check(0, 0, 300, 16);
}

// The wire's trust model in one test (docs/wire-format.md, "Who may change what"): a stranger
// at 127.0.0.3 that knows the wire format sends b every connection-management message type and
// every RC opcode, with the live connection's real ids, QP number, expected PSN and key as well
// as guessed ones, each with an ICRC over its own flow and over a's (claiming a's address),
// and a departure stamp 1000 s ahead, while a and b hold a live connection. The connection
// keeps working, no disconnect event comes, b's clock and memory stay as they were, and each
// forged frame shows up only as one drop in b's counters.
class SocketWireStranger : public SocketWire {
  protected:
    /// Every drop counter of b that a stranger's frame may land in.
    std::uint64_t drops() {
        const nic::engine_counters& c = b_.nic->engine->counters();
        std::uint64_t n = c.frames_for_unknown_qp.load() + c.frames_for_unconnected_qp.load() +
                          c.protocol_errors.load() + c.pkey_violations.load() +
                          c.cm_bad_messages.load() + socket_stats(b_).bad_frames.load();
        for (const auto& cause : c.bad_frames) {
            n += cause.load();
        }
        return n;
    }
};

TEST_P(SocketWireStranger, EveryMessageWithGuessedIdsLeavesTheLiveConnectionAlone) {
    const bool tcp = GetParam() == NDKSIM_WIRE_TCP;
    auto* ca = api::from_ndk<core::connector>(a_.connector, core::object_kind::connector, "test");
    auto* cb = api::from_ndk<core::connector>(b_.connector, core::object_kind::connector, "test");
    core::qp& qb = *api::from_ndk<core::qp>(b_.qp, core::object_kind::qp, "test");
    const timing::sim_time start = now(b_);
    const timing::sim_time stamp = start + timing::seconds(1000);
    const std::vector<std::byte> memory_before(b_.buf.bytes, b_.buf.bytes + b_.buf.size);
    const std::uint64_t drops_before = drops();
    std::vector<std::vector<unsigned char>> bodies;
    std::array<std::byte, wire::max_frame_size> frame{};
    const wire::flow flows[] = {flow_to_b(0x7F000003), flow_to_b(0x7F000001)};

    // Connection management: every type but a request (which any host may send to a listener)
    // with the real ids, swapped ids, and guesses; the payload claims to come from a.
    const std::pair<std::uint32_t, std::uint32_t> ids[] = {{ca->local_id, cb->local_id},
                                                           {cb->local_id, ca->local_id},
                                                           {1, 1},
                                                           {2, 0},
                                                           {0x12345678, 0x9ABCDEF0}};
    for (const wire::cm_type type :
         {wire::cm_type::reply, wire::cm_type::ready_to_use, wire::cm_type::reject,
          wire::cm_type::disconnect_request, wire::cm_type::disconnect_reply}) {
        for (const auto& [local, remote] : ids) {
            for (const wire::flow& f : flows) {
                wire::cm_message m;
                m.type = type;
                m.local_connection_id = local;
                m.remote_connection_id = remote;
                m.src_ip = wire::ip_address::v4(127, 0, 0, 1);
                m.dst_ip = wire::ip_address::v4(127, 0, 0, 2);
                m.src_port = ca->local_address.port;
                m.dst_port = cb->local_address.port;
                m.qp_number = qb.qpn() + 1;
                const wire::cm_encode_result r = wire::encode_cm_frame(m, 7, f, frame);
                ASSERT_TRUE(r.ok());
                bodies.push_back(
                    socket_body(std::span<const std::byte>(frame).first(r.size), stamp, tcp));
            }
        }
    }
    // Data: every RC opcode, at b's QP and at guessed ones, at the expected PSN and the next.
    const std::uint32_t expected = nic::context_of(qb).resp.expected_psn;
    const std::array<std::byte, 32> payload{std::byte{0xEE}};
    for (std::uint32_t raw = 0; raw < 256; ++raw) {
        const wire::opcode_info& info = wire::opcode_lookup(raw);
        if (!info.valid || info.svc != wire::service::rc) {
            continue;
        }
        for (const std::uint32_t qpn : {qb.qpn(), 2U, 3U, 0x7777U}) {
            for (const std::uint32_t psn : {expected, wire::psn_add(expected, 1)}) {
                for (const wire::flow& f : flows) {
                    wire::packet_headers h;
                    h.bth.op = static_cast<wire::opcode>(raw);
                    h.bth.dest_qp = qpn;
                    h.bth.psn = psn;
                    h.bth.ack_req = true;
                    h.reth = wire::reth_fields{b_.buf.address(), b_.buf.remote_token, 32};
                    h.atomic_eth.va = b_.buf.address();
                    h.atomic_eth.rkey = b_.buf.remote_token;
                    h.invalidate_rkey = b_.buf.remote_token;
                    const auto data = info.has_payload ? std::span<const std::byte>(payload)
                                                       : std::span<const std::byte>();
                    const wire::encode_result r = wire::encode_frame(h, data, f, frame);
                    ASSERT_TRUE(r.ok()) << wire::opcode_name(raw);
                    bodies.push_back(socket_body(
                        std::span<const std::byte>(frame).first(r.frame_size), stamp, tcp));
                }
            }
        }
    }

    // All of it from one socket of the stranger's.
    const sockaddr_in to = adapter_b(port_);
    const int fd = plain_socket(tcp ? SOCK_STREAM : SOCK_DGRAM);
    ASSERT_GE(fd, 0);
    if (tcp) {
        ASSERT_EQ(0, ::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to));
    }
    for (const auto& body : bodies) {
        const auto sent = tcp ? ::send(fd, body.data(), body.size(), MSG_NOSIGNAL)
                              : ::sendto(fd, body.data(), body.size(), 0,
                                         reinterpret_cast<const sockaddr*>(&to), sizeof to);
        ASSERT_EQ(static_cast<ssize_t>(body.size()), sent);
    }
    ASSERT_TRUE(wait_until([&] { return drops() - drops_before >= bodies.size(); },
                           "b to drop and count every one of the stranger's frames"));
    ::close(fd);

    EXPECT_EQ(bodies.size(), drops() - drops_before) << "one count per forged frame";
    EXPECT_LT(now(b_), stamp) << "a stranger's stamp moved b's clock";
    EXPECT_EQ(0, std::memcmp(memory_before.data(), b_.buf.bytes, b_.buf.size))
        << "a stranger's frame changed b's memory";
    EXPECT_EQ(0U, socket_stats(b_).departures_refused.load());
    {
        std::lock_guard lock(board_.m);
        EXPECT_EQ(0, a_.disconnect_events);
        EXPECT_EQ(0, b_.disconnect_events);
        // The listener's last connect event is still the one of the pair's own connection.
        EXPECT_EQ(b_.connector, incoming_) << "a stranger's message raised a connect event";
    }
    EXPECT_EQ(core::qp_state::connected, qb.state());
    // The live connection carries a send and a write both ways of the check.
    send_and_check(0, 0, 300, 17);
    fill(a_.buf.bytes + 8192, 4096, 18);
    EXPECT_NT_SUCCESS(write_from_a(8192, 4096, b_.buf.address() + 8192, b_.buf.remote_token));
    settle(b_);
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes + 8192, b_.buf.bytes + 8192, 4096));
}

INSTANTIATE_TEST_SUITE_P(Wires, SocketWireStranger,
                         ::testing::Values(NDKSIM_WIRE_UDP, NDKSIM_WIRE_TCP), wire_name);

INSTANTIATE_TEST_SUITE_P(Wires, SocketWireStrangerFirst,
                         ::testing::Values(NDKSIM_WIRE_UDP, NDKSIM_WIRE_TCP), wire_name);

INSTANTIATE_TEST_SUITE_P(Wires, SocketWire, ::testing::Values(NDKSIM_WIRE_UDP, NDKSIM_WIRE_TCP),
                         wire_name);

}  // namespace
}  // namespace ndksim::integration
