// SPDX-License-Identifier: MIT
// How the UDP wire takes datagrams from the kernel (udp_receive_batch) with UDP_GRO: a run of
// segments the kernel kept together (a sender's UDP_SEGMENT message) is split at the segment
// size into one frame per datagram, the short last one included, and every datagram arrives
// whole and in order whatever its length: a write's full-size packets, a first packet longer
// than the others, ACK-sized runs. Real loopback sockets, with a sender using UDP_SEGMENT as a
// peer adapter does.

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "wire/udp_receive_batch.hpp"

namespace ndksim::wire {
namespace {

// A bound loopback UDP socket, closed at the end of the test.
struct udp_socket {
    int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
    sockaddr_in address{};
    udp_socket() {
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof address;
        EXPECT_EQ(0, ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address));
        EXPECT_EQ(0, ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &len));
    }
    ~udp_socket() { ::close(fd); }
    udp_socket(const udp_socket&) = delete;
    udp_socket& operator=(const udp_socket&) = delete;
};

// The bytes of datagram `d`, `length` long: each byte names its datagram and its place.
std::vector<std::byte> datagram_bytes(std::size_t d, std::size_t length) {
    std::vector<std::byte> b(length);
    for (std::size_t i = 0; i < length; ++i) {
        b[i] = std::byte{static_cast<std::uint8_t>(d * 31 + i * 7)};
    }
    return b;
}

class UdpReceiveBatch : public ::testing::Test {
  protected:
    void SetUp() override {
        const int one = 1;
        gro_ = ::setsockopt(rx_.fd, SOL_UDP, UDP_GRO, &one, sizeof one) == 0;
        if (!gro_) {
            GTEST_SKIP() << "this kernel has no UDP_GRO";
        }
    }

    // Sends `count` datagrams of `segment` bytes (the last `last` bytes, 0: full) as one
    // UDP_SEGMENT send, which loopback delivers as one run; returns every datagram's bytes.
    std::vector<std::vector<std::byte>> send_run(std::size_t count, std::size_t segment,
                                                 std::size_t last = 0) {
        std::vector<std::vector<std::byte>> sent;
        std::vector<std::byte> all;
        for (std::size_t d = 0; d < count; ++d) {
            sent.push_back(datagram_bytes(next_++, d + 1 == count && last != 0 ? last : segment));
            all.insert(all.end(), sent.back().begin(), sent.back().end());
        }
        const int gso = static_cast<int>(segment);
        EXPECT_EQ(0, ::setsockopt(tx_.fd, SOL_UDP, UDP_SEGMENT, &gso, sizeof gso));
        EXPECT_EQ(static_cast<ssize_t>(all.size()),
                  ::sendto(tx_.fd, all.data(), all.size(), 0,
                           reinterpret_cast<const sockaddr*>(&rx_.address), sizeof rx_.address));
        return sent;
    }

    // Receives until `expected` datagrams have been handed on (failing after 10 s), checking
    // each against what was sent, in order, and releasing its frame.
    void receive_all(udp_receive_batch& batch,
                     const std::vector<std::vector<std::byte>>& expected) {
        std::size_t got = 0;
        while (got < expected.size()) {
            pollfd p{rx_.fd, POLLIN, 0};
            if (::poll(&p, 1, 10000) != 1) {
                ADD_FAILURE() << "nothing to read after " << got << " datagrams";
                return;
            }
            const int n = batch.receive(rx_.fd, *pool_);
            for (int i = 0; i < n; ++i) {
                batch.split(static_cast<std::size_t>(i), *pool_, [&](frame* f, std::size_t length) {
                    if (got < expected.size()) {
                        const std::vector<std::byte>& want = expected[got];
                        EXPECT_EQ(want.size(), length) << "datagram " << got;
                        EXPECT_EQ(0,
                                  std::memcmp(want.data(), f->data, std::min(want.size(), length)))
                            << "datagram " << got;
                    }
                    ++got;
                    frame_pool::release(f);
                });
            }
        }
        EXPECT_EQ(expected.size(), got);
        // Every frame handed on went back: the pool holds none beyond the batch's own.
        EXPECT_EQ(0u, pool_->outstanding());
    }

    udp_socket rx_;
    udp_socket tx_;
    std::shared_ptr<frame_pool> pool_ = frame_pool::create(64);
    std::size_t next_ = 0;
    bool gro_ = false;
};

// 4 KiB-MTU packets on the socket: bth + 4096 + icrc + departure trailer.
constexpr std::size_t k_full = 4120;

TEST_F(UdpReceiveBatch, ARunIsSplitIntoItsDatagramsTheShortLastOneIncluded) {
    udp_receive_batch batch(true);
    ASSERT_TRUE(batch.gro());
    // 14 full-size packets and a shorter last one: a write's middle packets and its last.
    receive_all(batch, send_run(15, k_full, 1000));
}

TEST_F(UdpReceiveBatch, DatagramsOfEveryLengthArriveWholeAndInOrder) {
    udp_receive_batch batch(true);
    // ACK-sized segments, a single datagram longer than the full-size ones (a first packet
    // with its RETH), full-size ones, and small ones again.
    auto sent = send_run(40, 28);
    for (const auto& more :
         {send_run(1, k_full + 16), send_run(8, k_full, 500), send_run(5, 100, 60)}) {
        sent.insert(sent.end(), more.begin(), more.end());
    }
    receive_all(batch, sent);
}

}  // namespace
}  // namespace ndksim::wire
