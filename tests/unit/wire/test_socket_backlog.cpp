// SPDX-License-Identifier: MIT
// The receive backlog of a socket transport (docs/wire-format.md, "Hostile input"): the frames
// an adapter has read from its socket and its engine has not processed yet are bounded, the
// ones beyond the bound are dropped unread and counted, and once the backlog drained the
// receive pool gives back what it grew beyond its steady size. A flood goes through the
// receiving half both socket transports share (deliver_from_socket) on a deterministic
// scheduler, with an engine that holds every frame it is handed until the test lets go.

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "timing/scheduler.hpp"
#include "wire/codec.hpp"
#include "wire/socket_common.hpp"

namespace ndksim::wire {
namespace {

constexpr timing::scheduler::options k_deterministic{timing::run_mode::deterministic,
                                                     timing::poll_policy::block, "backlog"};

// A WRITE ONLY of 64 bytes from 10.0.0.1 to 10.0.0.2 with a correct ICRC and a departure
// trailer of 0, as a socket would carry it.
std::vector<std::byte> socket_body_bytes() {
    packet_headers h;
    h.bth.op = opcode::rc_write_only;
    h.bth.dest_qp = 0x42;
    h.reth = reth_fields{0x1000, 0x100, 64};
    const std::vector<std::byte> payload(64, std::byte{0x5A});
    const flow f{ip_address::v4(10, 0, 0, 1), ip_address::v4(10, 0, 0, 2)};
    std::vector<std::byte> body(k_max_frame_bytes);
    const encode_result r = encode_frame(h, payload, f, body);
    EXPECT_TRUE(r.ok());
    body.resize(r.frame_size + socket_trailer_size);
    store_be<socket_trailer_size>(body.data() + r.frame_size, 0);
    return body;
}

// A receiver on a deterministic scheduler whose engine holds every frame it is handed.
struct holding_receiver {
    timing::scheduler sched{k_deterministic};
    std::vector<frame*> held;
    std::shared_ptr<socket_receiver> rx = std::make_shared<socket_receiver>(
        ip_address::v4(10, 0, 0, 2), roce_udp_port, sched, [this](frame* f) { held.push_back(f); },
        0);
    std::vector<std::byte> body = socket_body_bytes();

    // Reads one frame from the peer 10.0.0.1 into the receiver; its verdict.
    socket_body read_one() {
        frame* f = rx->rx_pool->take();
        std::memcpy(f->data, body.data(), body.size());
        return deliver_from_socket(rx, f, body.size(), ip_address::v4(10, 0, 0, 1));
    }

    // Runs the scheduler until the engine holds `n` frames.
    void until_held(std::size_t n) {
        while (held.size() < n) {
            ASSERT_TRUE(sched.run_one()) << "the deliveries ran dry after " << held.size();
        }
    }
};

TEST(SocketBacklog, AFloodIsBoundedCountedAndItsFramesGivenBack) {
    timing::scheduler sched(k_deterministic);
    std::vector<frame*> held;  // frames the engine was handed and has not processed
    auto rx = std::make_shared<socket_receiver>(
        ip_address::v4(10, 0, 0, 2), roce_udp_port, sched, [&held](frame* f) { held.push_back(f); },
        0);
    const std::vector<std::byte> body = socket_body_bytes();
    const ip_address peer = ip_address::v4(10, 0, 0, 1);

    constexpr std::size_t flood = k_rx_backlog_frames + 1000;
    std::size_t accepted = 0;    // frames that went on towards the engine, all of them first
    std::size_t first_drop = 0;  // the index of the first frame dropped
    for (std::size_t i = 0; i < flood; ++i) {
        frame* f = rx->rx_pool->take();
        std::memcpy(f->data, body.data(), body.size());
        switch (deliver_from_socket(rx, f, body.size(), peer)) {
            case socket_body::frame:
                ++accepted;
                break;
            case socket_body::dropped:
                first_drop = first_drop == 0 ? i : first_drop;
                break;
            default:
                ADD_FAILURE() << "frame " << i << " refused";
                return;
        }
    }
    EXPECT_EQ(k_rx_backlog_frames, accepted);
    EXPECT_EQ(k_rx_backlog_frames, first_drop);
    EXPECT_EQ(1000U, rx->socket.backlog_dropped.load());
    EXPECT_EQ(k_rx_backlog_frames, rx->rx_pool->outstanding());
    // A dropped frame's buffer is reused for the next read: the pool never grew past the bound
    // plus the one buffer being read into.
    EXPECT_LE(rx->rx_pool->allocated(), k_rx_backlog_frames + 1);

    // The engine takes its time: every accepted frame reaches it (deliveries run before the
    // first trim check, a millisecond of simulated time later).
    while (held.size() < k_rx_backlog_frames) {
        ASSERT_TRUE(sched.run_one()) << "the deliveries ran dry after " << held.size();
    }
    EXPECT_EQ(k_rx_backlog_frames, rx->counters.frames_received.load());

    // The backlog drains; the next trim check gives the growth back.
    for (frame* f : held) {
        frame_pool::release(f);
    }
    held.clear();
    sched.run_until_idle();
    EXPECT_EQ(0U, rx->rx_pool->outstanding());
    EXPECT_EQ(k_rx_steady_frames, rx->rx_pool->allocated());
}

// Frames beyond the steady size that stay out (a socket's own receive buffers hold some for
// good) cannot be trimmed: the checks stop after one quiet round anyway, so the scheduler goes
// idle (an adapter's close waits for that) and the next delivery arms a new round.
TEST(SocketBacklog, TrimChecksStopWhenWhatIsBeyondTheSteadySizeStaysOut) {
    holding_receiver r;
    for (std::size_t i = 0; i < k_rx_steady_frames + 100; ++i) {
        ASSERT_EQ(socket_body::frame, r.read_one());
    }
    // The engine keeps the last 200 frames it got, fewer than the steady size but among them
    // the 100 the pool took beyond it, which no trim can free while they are out.
    r.until_held(k_rx_steady_frames + 100);
    const std::size_t released = r.held.size() - 200;
    for (std::size_t i = 0; i < released; ++i) {
        frame_pool::release(r.held[i]);
    }
    r.held.erase(r.held.begin(), r.held.begin() + static_cast<std::ptrdiff_t>(released));
    ASSERT_TRUE(r.rx->rx_pool->above_steady());
    const std::size_t ran = r.sched.run_until_idle(10'000);
    EXPECT_LT(ran, 10'000U) << "the trim check kept re-arming itself";
    EXPECT_TRUE(r.sched.idle());
    for (frame* f : r.held) {
        frame_pool::release(f);
    }
}

// TCP outside synchronized time is lossless: its connection stops reading while the backlog
// is full (TCP's window then holds the sender back), so a read that takes the backlog past the
// bound keeps every frame it carried.
TEST(SocketBacklog, ALosslessReceiverKeepsEveryFrameItRead) {
    holding_receiver r;
    r.rx->lossless = true;
    constexpr std::size_t flood = k_rx_backlog_frames + 100;
    for (std::size_t i = 0; i < flood; ++i) {
        ASSERT_EQ(socket_body::frame, r.read_one()) << "frame " << i;
    }
    EXPECT_EQ(0U, r.rx->socket.backlog_dropped.load());
    EXPECT_EQ(flood, r.rx->rx_pool->outstanding());
    r.until_held(flood);
    for (frame* f : r.held) {
        frame_pool::release(f);
    }
}

TEST(SocketBacklog, TrafficBelowTheSteadySizeNeverArmsATrim) {
    timing::scheduler sched(k_deterministic);
    auto rx = std::make_shared<socket_receiver>(
        ip_address::v4(10, 0, 0, 2), roce_udp_port, sched, [](frame* f) { frame_pool::release(f); },
        0);
    const std::vector<std::byte> body = socket_body_bytes();
    for (int i = 0; i < 100; ++i) {
        frame* f = rx->rx_pool->take();
        std::memcpy(f->data, body.data(), body.size());
        EXPECT_EQ(socket_body::frame,
                  deliver_from_socket(rx, f, body.size(), ip_address::v4(10, 0, 0, 1)));
    }
    // Only the 100 deliveries are queued: no trim check.
    std::size_t events = 0;
    while (sched.run_one()) {
        ++events;
    }
    EXPECT_EQ(100U, events);
    EXPECT_EQ(0U, rx->socket.backlog_dropped.load());
    EXPECT_LE(rx->rx_pool->allocated(), k_rx_steady_frames);
}

}  // namespace
}  // namespace ndksim::wire
