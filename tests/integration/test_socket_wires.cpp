// Every data-path operation between two threaded adapters over real sockets on the loopback
// interface, once over UDP and once over TCP: connection with private data, RDMA writes of every
// size class, reads, sends, send-and-invalidate, memory windows, disconnect, and bad input
// from a plain socket that is counted and dropped while the connection keeps working.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "api/adapter_state.hpp"
#include "integration/socket_pair.hpp"
#include "wire/socket_transport.hpp"

namespace ndksim::integration {
namespace {

class SocketWire : public SocketPair {
  protected:
    /// The socket counters of side `s`'s transport.
    const wire::socket_counters& socket_stats(pair_side& s) {
        return dynamic_cast<wire::socket_transport&>(*s.nic->link.base).socket_stats();
    }

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
        ASSERT_STATUS(STATUS_SUCCESS, b_.qp->Dispatch->NdkReceive(b_.qp, nullptr, &r, 1));
        NDK_SGE s = a_.buf.sge(src, length);
        ASSERT_STATUS(STATUS_SUCCESS, a_.qp->Dispatch->NdkSend(a_.qp, nullptr, &s, 1, 0));
        EXPECT_STATUS(STATUS_SUCCESS, result(a_, na, "the send's completion").Status);
        const NDK_RESULT_EX got = result(b_, nb, "the receive's completion");
        EXPECT_STATUS(STATUS_SUCCESS, got.Status);
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
        EXPECT_STATUS(STATUS_SUCCESS, write_from_a(offset, s.length, b_.buf.address() + offset,
                                                   b_.buf.remote_token, s.flags))
            << s.what;
        settle(b_);
        EXPECT_EQ(0, std::memcmp(a_.buf.bytes + offset, b_.buf.bytes + offset, s.length)) << s.what;
        offset += (s.length + 4095) / 4096 * 4096;
    }
}

TEST_P(SocketWire, ReadsBringTheRemoteBytes) {
    constexpr ULONG size = 1024 * 1024;
    fill(b_.buf.bytes, size, 42);
    settle(b_);  // b's engine reads these bytes, reached from here only through a's socket
    NDK_SGE r = a_.buf.sge(2 * size, size);
    ASSERT_STATUS(STATUS_SUCCESS, a_.qp->Dispatch->NdkRead(a_.qp, nullptr, &r, 1, b_.buf.address(),
                                                           b_.buf.remote_token, 0));
    const NDK_RESULT_EX got = result(a_, 1, "the read's completion");
    EXPECT_STATUS(STATUS_SUCCESS, got.Status);
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
    ASSERT_STATUS(STATUS_SUCCESS, b_.qp->Dispatch->NdkReceive(b_.qp, nullptr, &r, 1));
    fill(a_.buf.bytes, 200, 3);
    NDK_SGE s = a_.buf.sge(0, 200);
    ASSERT_STATUS(STATUS_SUCCESS,
                  a_.qp->Dispatch->NdkSendAndInvalidate(a_.qp, nullptr, &s, 1, 0, token));
    EXPECT_STATUS(STATUS_SUCCESS, result(a_, 1, "the send's completion").Status);
    const NDK_RESULT_EX got = result(b_, nb, "the receive's completion");
    EXPECT_STATUS(STATUS_SUCCESS, got.Status);
    EXPECT_EQ(NdkOperationTypeReceiveAndInvalidate, got.Type);
    EXPECT_EQ(static_cast<ULONG_PTR>(token), got.TypeSpecificCompletionOutput);
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes + 131072, 200));
    EXPECT_STATUS(STATUS_ACCESS_VIOLATION, write_from_a(0, 64, b_.buf.address(), token));
}

TEST_P(SocketWire, BoundWindowTakesAWriteAndRefusesItAfterInvalidate) {
    NDK_MW* mw = nullptr;
    const UINT32 token = bind_window_on_b(65536, 65536, mw);
    ASSERT_NE(nullptr, mw);
    fill(a_.buf.bytes, 4096, 5);
    EXPECT_STATUS(STATUS_SUCCESS, write_from_a(0, 4096, b_.buf.address() + 65536, token));
    settle(b_);
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes + 65536, 4096));
    const std::size_t nb = result_count(b_) + 1;
    ASSERT_STATUS(STATUS_SUCCESS, b_.qp->Dispatch->NdkInvalidate(b_.qp, mw, &mw->Header, 0));
    const NDK_RESULT_EX inv = result(b_, nb, "the invalidate's completion");
    EXPECT_STATUS(STATUS_SUCCESS, inv.Status);
    EXPECT_EQ(NdkOperationTypeInvalidate, inv.Type);
    EXPECT_STATUS(STATUS_ACCESS_VIOLATION, write_from_a(0, 64, b_.buf.address() + 65536, token));
}

TEST_P(SocketWire, DisconnectReachesThePeer) {
    done_slot done{&board_};
    ASSERT_STATUS(STATUS_SUCCESS, finish(a_.connector->Dispatch->NdkDisconnect(
                                             a_.connector, done_slot::on_request, &done),
                                         done, "Disconnect's completion"));
    ASSERT_TRUE(board_.wait([&] { return b_.disconnect_events == 1; }, "the disconnect event"));
    done_slot peer{&board_};
    EXPECT_STATUS(STATUS_SUCCESS, finish(b_.connector->Dispatch->NdkDisconnect(
                                             b_.connector, done_slot::on_request, &peer),
                                         peer, "the peer's Disconnect"));
    std::lock_guard lock(board_.m);
    EXPECT_EQ(0, a_.disconnect_events);
}

/// A plain socket of `type` on 127.0.0.3 with a receive timeout, so a blocking read fails
/// loudly instead of hanging.
int plain_socket(int type) {
    const int fd = ::socket(AF_INET, type, 0);
    timeval tv{};
    tv.tv_sec = 30;
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in local{};
    local.sin_family = AF_INET;
    local.sin_addr.s_addr = htonl(0x7F000003);
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
        EXPECT_EQ(2U, socket_stats(b_).bad_frames.load());
    } else {
        const int fd = plain_socket(SOCK_STREAM);
        ASSERT_GE(fd, 0);
        ASSERT_EQ(0, ::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to));
        const unsigned char prefix[4] = {0xFF, 0xFF, 0xFF, 0xF0};
        ASSERT_EQ(4, ::send(fd, prefix, sizeof prefix, MSG_NOSIGNAL));
        // b closes that connection (only): the read sees the end of the stream.
        char byte = 0;
        EXPECT_EQ(0, ::recv(fd, &byte, 1, 0)) << "b did not close the bad connection";
        ::close(fd);
        EXPECT_EQ(1U, socket_stats(b_).bad_records.load());
        send_and_check(0, 0, 300, 9);
    }
    send_and_check(4096, 4096, 5000, 10);
}

INSTANTIATE_TEST_SUITE_P(Wires, SocketWire, ::testing::Values(NDKSIM_WIRE_UDP, NDKSIM_WIRE_TCP),
                         wire_name);

}  // namespace
}  // namespace ndksim::integration
