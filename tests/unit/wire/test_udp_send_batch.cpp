// SPDX-License-Identifier: MIT
// How the UDP wire groups queued frames for one sendmmsg: one message per frame without
// segmentation offload; with it, runs of frames to one peer that share the first frame's length
// (only the last may be shorter), within the kernel's 64 segments and 64 KiB, carrying that
// length as UDP_SEGMENT. A batch stops at its message and frame limits and leaves the rest
// queued, a partial send leaves the unsent messages pending, and a batch given back puts its
// unsent frames at the front of the queue in their order.

#include <gtest/gtest.h>

#include <netinet/udp.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "wire/udp_send_batch.hpp"

namespace ndksim::wire {
namespace {

const ip_address k_peer = ip_address::v4(127, 0, 0, 2);
const ip_address k_other = ip_address::v4(127, 0, 0, 3);

struct queued {
    std::shared_ptr<frame_pool> pool = frame_pool::create(64);
    frame_queue q;

    // Queues a frame of `length` bytes to `to`, its first byte `tag`.
    void add(std::uint32_t length, const ip_address& to = k_peer, std::uint8_t tag = 0) {
        frame* f = pool->take();
        f->length = length;
        f->source = to;
        f->data[0] = std::byte{tag};
        q.push(f);
    }
    void add_many(std::size_t n, std::uint32_t length) {
        for (std::size_t i = 0; i < n; ++i) {
            add(length, k_peer, static_cast<std::uint8_t>(i));
        }
    }
    std::size_t size() const {
        std::size_t n = 0;
        for (const frame* f = q.front(); f != nullptr; f = f->next) {
            ++n;
        }
        return n;
    }
};

// Frames per pending message.
std::vector<std::size_t> shape(udp_send_batch& b) {
    std::vector<std::size_t> out;
    for (unsigned i = 0; i < b.pending_count(); ++i) {
        out.push_back(b.pending()[i].msg_hdr.msg_iovlen);
    }
    return out;
}

// The UDP_SEGMENT size message `i` carries; 0 for none.
std::uint16_t segment_of(udp_send_batch& b, unsigned i) {
    msghdr& h = b.pending()[i].msg_hdr;
    if (h.msg_control == nullptr) {
        return 0;
    }
    const cmsghdr* c = CMSG_FIRSTHDR(&h);
    EXPECT_EQ(SOL_UDP, c->cmsg_level);
    EXPECT_EQ(UDP_SEGMENT, c->cmsg_type);
    std::uint16_t size = 0;
    std::memcpy(&size, CMSG_DATA(c), sizeof size);
    return size;
}

TEST(UdpSendBatch, WithoutSegmentationEachFrameIsAMessageAndABatchStopsAtItsMessageLimit) {
    queued s;
    s.add_many(udp_send_batch::k_messages + 6, 4150);
    udp_send_batch b;
    b.fill(s.q, 4791, false);
    EXPECT_EQ(std::vector<std::size_t>(udp_send_batch::k_messages, 1), shape(b));
    EXPECT_EQ(6U, s.size()) << "the frames beyond the batch stay queued, in order";
    EXPECT_EQ(std::byte{udp_send_batch::k_messages}, s.q.front()->data[0]);
    EXPECT_EQ(0, segment_of(b, 0));
    // Each message names the peer's address and the wire's port.
    const auto* to = static_cast<const sockaddr_in*>(b.pending()[3].msg_hdr.msg_name);
    EXPECT_EQ(AF_INET, to->sin_family);
    EXPECT_EQ(htons(4791), to->sin_port);
    EXPECT_EQ(0, std::memcmp(&to->sin_addr, k_peer.bytes.data(), 4));
    b.sent(udp_send_batch::k_messages);
    EXPECT_TRUE(b.empty());
    b.fill(s.q, 4791, false);
    EXPECT_EQ(std::vector<std::size_t>(6, 1), shape(b)) << "a partial batch";
    b.sent(6);
    EXPECT_EQ(0U, s.pool->outstanding()) << "sent frames go back to their pool";
}

TEST(UdpSendBatch, EqualFramesToOnePeerShareAMessageUpTo64KiB) {
    queued s;
    s.add_many(40, 4150);
    udp_send_batch b;
    b.fill(s.q, 4791, true);
    // 15 frames of 4150 bytes fit the 65507 bytes of one datagram's payload; 16 do not.
    EXPECT_EQ((std::vector<std::size_t>{15, 15, 10}), shape(b));
    for (unsigned i = 0; i < 3; ++i) {
        EXPECT_EQ(4150, segment_of(b, i)) << i;
    }
    b.sent(3);
    EXPECT_EQ(0U, s.pool->outstanding());
}

TEST(UdpSendBatch, SmallFramesShareAMessageUpToTheSegmentLimit) {
    queued s;
    s.add_many(100, 90);
    udp_send_batch b;
    b.fill(s.q, 4791, true);
    EXPECT_EQ((std::vector<std::size_t>{udp_send_batch::k_max_segments, 36}), shape(b));
    b.sent(2);
}

TEST(UdpSendBatch, AShorterFrameEndsItsRunAndALongerOrOtherPeerStartsANewOne) {
    queued s;
    s.add(100);
    s.add(100);
    s.add(60);   // the last segment may be shorter ...
    s.add(100);  // ... but nothing follows it in that message
    s.add(200);  // longer than the run's segment size
    s.add(200, k_other);
    s.add(200, k_other);
    s.add(1);  // one frame alone carries no UDP_SEGMENT
    udp_send_batch b;
    b.fill(s.q, 4791, true);
    EXPECT_EQ((std::vector<std::size_t>{3, 1, 1, 2, 1}), shape(b));
    EXPECT_EQ(100, segment_of(b, 0));
    EXPECT_EQ(0, segment_of(b, 1));
    EXPECT_EQ(0, segment_of(b, 2));
    EXPECT_EQ(200, segment_of(b, 3));
    EXPECT_EQ(0, segment_of(b, 4));
    const auto* to = static_cast<const sockaddr_in*>(b.pending()[3].msg_hdr.msg_name);
    EXPECT_EQ(0, std::memcmp(&to->sin_addr, k_other.bytes.data(), 4));
    b.sent(5);
}

TEST(UdpSendBatch, APartialSendLeavesTheRestPendingAndGivenBackTheyQueueFirstInOrder) {
    queued s;
    s.add_many(10, 500);
    udp_send_batch b;
    b.fill(s.q, 4791, false);
    s.add(500, k_peer, 99);  // queued behind the batch
    b.sent(4);
    EXPECT_EQ(6U, b.pending_count());
    EXPECT_EQ(std::byte{4},
              static_cast<const std::byte*>(b.pending()[0].msg_hdr.msg_iov[0].iov_base)[0]);
    std::atomic<std::uint64_t> lost{0};
    b.drop_first(lost);
    EXPECT_EQ(1U, lost.load()) << "a refused message's frames are counted";
    EXPECT_EQ(5U, b.pending_count());
    // The kernel refused segmentation: the rest goes back, ahead of what was queued after it.
    b.give_back(s.q);
    EXPECT_TRUE(b.empty());
    std::vector<int> order;
    for (const frame* f = s.q.front(); f != nullptr; f = f->next) {
        order.push_back(static_cast<int>(f->data[0]));
    }
    EXPECT_EQ((std::vector<int>{5, 6, 7, 8, 9, 99}), order);
    EXPECT_EQ(6U, s.pool->outstanding()) << "sent and dropped frames went back to the pool";
    s.q.drop_all(lost);
}

TEST(UdpSendBatch, ABatchTakesAtMostItsFrameLimit) {
    queued s;
    s.add_many(udp_send_batch::k_frames + 10, 90);
    udp_send_batch b;
    b.fill(s.q, 4791, true);
    std::size_t frames = 0;
    for (const std::size_t n : shape(b)) {
        frames += n;
    }
    EXPECT_EQ(udp_send_batch::k_frames, frames);
    EXPECT_EQ(10U, s.size());
    b.sent(b.pending_count());
    std::atomic<std::uint64_t> lost{0};
    s.q.drop_all(lost);
}

}  // namespace
}  // namespace ndksim::wire
