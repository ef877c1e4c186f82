// SPDX-License-Identifier: MIT
// The host window of a threaded in-process pair (docs/engine.md, "Host window"). Each adapter's
// engine runs on its own thread; a receiving engine slower than its sender (the host, not the
// model) kept a deep queue of large writes in its inbox past the ACK timeout, and go-back-N
// resent everything behind. So a threaded in-process QP keeps at most
// nic::k_inproc_host_window_packets request packets unacknowledged, as the socket wires keep
// theirs, while deterministic and synchronized time, whose figures are the model's alone, have
// no window. Threaded, so the TSan build runs it too.
//
// Whether a run of this test resends anything depends on the host's load, so it asserts the
// window and the bytes, not the absence of retransmissions; ndksim-perf shows the speed
// (docs/performance.md, "Threaded in process"). Last, what the transport timer asks of the
// link when a peer's engine falls behind: frames it has not taken in
// (transport::output_pending), or events it had due and has not run (transport::peer_behind).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "api/adapter_state.hpp"
#include "integration/engine_hold.hpp"
#include "nic/engine.hpp"
#include "threaded_pair/adapter_pair.hpp"
#include "threaded_pair/pattern.hpp"
#include "timing/scheduler.hpp"
#include "wire/frame.hpp"
#include "wire/inproc_link.hpp"
#include "wire/socket_common.hpp"

namespace ndksim::integration {
namespace {

using threaded::board;
using threaded::fill;

constexpr ULONG k_length = 1024 * 1024;

class InprocThreadedWindow : public ::testing::Test, protected threaded::adapter_pair {
  protected:
    InprocThreadedWindow()
        : adapter_pair({"10.0.7.1", "10.0.7.2", k_length, 64, "hello from a", "hello from b"}) {}

    void SetUp() override {
        make_inproc_adapter(a_.nic, shape().a_address, NDKSIM_POLL_BLOCK,
                            board::k_patient_ack_timeout_us);
        make_inproc_adapter(b_.nic, shape().b_address, NDKSIM_POLL_BLOCK,
                            board::k_patient_ack_timeout_us);
        ASSERT_FALSE(HasFatalFailure());
        open_and_connect();
    }

    void TearDown() override { close_all(); }
};

// Twelve writes of 1 MiB outstanding are 3,072 packets, more than the window: the requester
// stops at its end and goes on as ACKs come, and every byte arrives.
TEST_F(InprocThreadedWindow, ADeepQueueOfLargeWritesPassesThroughTheHostWindow) {
    EXPECT_EQ(nic::k_inproc_host_window_packets, a_.nic->engine->config().host_window_packets);
    EXPECT_EQ(nic::k_inproc_host_window_packets, b_.nic->engine->config().host_window_packets);
    constexpr std::size_t k_writes = 12;
    static_assert(k_writes * (k_length / 4096) > nic::k_inproc_host_window_packets);
    fill(a_.buf.bytes, k_length, 31);
    ASSERT_NO_FATAL_FAILURE(write_queue_a_to_b(k_writes, k_length));
    // b's engine placed the last write before its ACK left; the completion came through a's
    // engine, which the results' lock orders after it.
    EXPECT_EQ(0, std::memcmp(a_.buf.bytes, b_.buf.bytes, k_length));
}

// The window of an adapter created with `c` (destroyed again).
std::uint32_t window_of(const ndksim_adapter_config& c) {
    ndksim_adapter* nic = nullptr;
    if (ndksim_adapter_create(&c, &nic) != STATUS_SUCCESS) {
        ADD_FAILURE() << "creating the adapter at " << c.address;
        return UINT32_MAX;
    }
    const std::uint32_t window = nic->engine->config().host_window_packets;
    ndksim_adapter_destroy(nic);
    return window;
}

// Time modes whose figures are the model's own keep no window.
TEST(InprocWindow, NeitherDeterministicNorSynchronizedTimeHasOne) {
    ndksim_loop* loop = nullptr;
    ASSERT_NT_SUCCESS(ndksim_loop_create(&loop));
    ndksim_adapter_config c;
    ndksim_adapter_config_init(&c);
    c.address = "10.0.7.3";
    c.loop = loop;
    EXPECT_EQ(0U, window_of(c));
    ndksim_loop_destroy(loop);

    ndksim_adapter_config_init(&c);
    c.address = "10.0.7.4";
    c.time_mode = NDKSIM_TIME_SYNCHRONIZED;
    EXPECT_EQ(0U, window_of(c));
}

constexpr timing::sim_time k_latency = 100'000;  // 100 ns
const wire::ip_address k_a = wire::ip_address::v4(10, 0, 7, 5);
const wire::ip_address k_b = wire::ip_address::v4(10, 0, 7, 6);

timing::scheduler::options threaded_options(const char* name) {
    timing::scheduler::options o;
    o.mode = timing::run_mode::threaded;
    o.name = name;
    return o;
}

void release_frame(wire::frame* f) {
    wire::frame_pool::release(f);
}

// Two in-process links, each on a threaded scheduler of its own, and a's peer for b.
struct threaded_links {
    explicit threaded_links(wire::transport::receive_fn at_b = release_frame)
        : a(k_a, sa, release_frame, k_latency), b(k_b, sb, std::move(at_b), k_latency) {}
    timing::scheduler sa{threaded_options("a")};
    timing::scheduler sb{threaded_options("b")};
    wire::inproc_link a;
    wire::inproc_link b;
    std::shared_ptr<wire::transport::peer> to_b = a.resolve(k_b);

    // True once b is neither pending (output_pending) nor behind (peer_behind) for a, waiting
    // up to 30 s of wall time for it.
    bool settles() {
        const auto busy = [this] {
            return a.output_pending(*to_b) || a.peer_behind(*to_b, sa.now());
        };
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (busy() && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::yield();
        }
        return !busy();
    }
};

// The timer's side of it (nic/retransmit.cpp): frames pushed to a threaded peer whose engine
// thread is busy stay pending for the sender (transport::output_pending) until that engine has
// run their arrivals.
TEST(InprocThreadedLink, FramesToABusyPeerArePendingUntilItsEngineTakesThemIn) {
    std::atomic<int> b_received{0};
    threaded_links l([&b_received](wire::frame* f) {
        b_received.fetch_add(1);
        wire::frame_pool::release(f);
    });
    ASSERT_NE(nullptr, l.to_b);
    EXPECT_FALSE(l.a.output_pending(*l.to_b));

    engine_hold hold(l.sb);
    std::shared_ptr<wire::frame_pool> pool = wire::frame_pool::create(8);
    bool pending_after_send = false;
    wire::run_on_engine_thread(l.sa, [&] {
        for (int i = 0; i < 3; ++i) {
            wire::frame* f = pool->take();
            f->length = 64;
            l.a.send(*l.to_b, f, 0);
        }
        pending_after_send = l.a.output_pending(*l.to_b);
    });
    EXPECT_TRUE(pending_after_send) << "b's engine is held: the frames wait in its inbox";
    EXPECT_EQ(0, b_received.load());

    hold.release();
    EXPECT_TRUE(l.settles()) << "b's engine did not take the frames in within 30 s";
    EXPECT_EQ(3, b_received.load());
}

// What b handled, in order: each frame's arrival. Filled on b's engine thread.
struct arrival_log {
    std::mutex m;
    std::vector<timing::sim_time> arrivals;

    wire::transport::receive_fn receiver() {
        return [this](wire::frame* f) {
            {
                const std::lock_guard lock(m);
                arrivals.push_back(f->arrival);
            }
            wire::frame_pool::release(f);
        };
    }
};

// Sends three frames from a to b, departing 2, 1 and 3 ms after `start` (the second one's
// arrival goes back), while b's engine is held: b takes all three in one drain. With
// `late_by_then`, b stays held until the clock has passed the last arrival.
void send_in_one_drain(threaded_links& l, wire::frame_pool& pool, timing::sim_time start,
                       bool late_by_then) {
    engine_hold hold(l.sb);
    wire::run_on_engine_thread(l.sa, [&] {
        for (const int ahead : {2, 1, 3}) {
            wire::frame* f = pool.take();
            f->length = 64;
            l.a.send(*l.to_b, f, start + timing::milliseconds(ahead));
        }
    });
    if (late_by_then) {
        const timing::sim_time passed = start + timing::milliseconds(3) + k_latency;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (l.sa.now() <= passed && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::yield();
        }
        EXPECT_GT(l.sa.now(), passed) << "the clock did not pass 3 ms within 30 s";
    }
}

// A threaded receiver takes its whole inbox at once and schedules it sorted by arrival. Frames
// whose arrival times go back (two senders' clocks, or one sender's ACK leaving before its
// data) each still arrive at their own time, in arrival order. The times are the ones the
// link gave the frames: a sender preempted between two sends moves the later one's arrival
// past the one intended, and the order checked moves with it.
TEST(InprocThreadedLink, FramesTakenTogetherArriveInTheOrderOfTheirArrivalTimes) {
    arrival_log log;
    threaded_links l(log.receiver());
    ASSERT_NE(nullptr, l.to_b);
    std::shared_ptr<wire::frame_pool> pool = wire::frame_pool::create(8);
    send_in_one_drain(l, *pool, l.sa.now(), false);
    EXPECT_TRUE(l.settles()) << "b's engine did not take the frames in within 30 s";
    const std::lock_guard lock(log.m);
    ASSERT_EQ(3U, log.arrivals.size());
    EXPECT_TRUE(std::is_sorted(log.arrivals.begin(), log.arrivals.end()))
        << log.arrivals[0] << " " << log.arrivals[1] << " " << log.arrivals[2];
}

// A receiver late on its frames (every one's arrival has come when it takes them in) still
// handles them in arrival order. Scheduled as two runs, [2] and [1, 3], both would run at the
// engine's present, in the order they were posted: 2, 1, 3.
TEST(InprocThreadedLink, ALateReceiverHandlesFramesTakenTogetherInArrivalOrder) {
    arrival_log log;
    threaded_links l(log.receiver());
    ASSERT_NE(nullptr, l.to_b);
    std::shared_ptr<wire::frame_pool> pool = wire::frame_pool::create(8);
    const timing::sim_time start = l.sa.now();
    send_in_one_drain(l, *pool, start, true);
    EXPECT_TRUE(l.settles()) << "b's engine did not take the frames in within 30 s";
    const std::lock_guard lock(log.m);
    ASSERT_EQ(3U, log.arrivals.size());
    EXPECT_TRUE(std::is_sorted(log.arrivals.begin(), log.arrivals.end()))
        << log.arrivals[0] - start << " " << log.arrivals[1] - start << " "
        << log.arrivals[2] - start;
}

// Frames whose run is still waiting for its arrival when the receiver goes away go back to
// their pool with the discarded event.
TEST(InprocThreadedLink, FramesOfARunStillWaitingGoBackToTheirPoolWhenTheReceiverGoes) {
    std::shared_ptr<wire::frame_pool> pool = wire::frame_pool::create(8);
    std::atomic<int> received{0};
    {
        threaded_links l([&received](wire::frame* f) {
            received.fetch_add(1);
            wire::frame_pool::release(f);
        });
        ASSERT_NE(nullptr, l.to_b);
        const timing::sim_time departure = l.sa.now() + timing::seconds(60);
        wire::run_on_engine_thread(l.sa, [&] {
            for (int i = 0; i < 3; ++i) {
                wire::frame* f = pool->take();
                f->length = 64;
                l.a.send(*l.to_b, f, departure);
            }
        });
        // Taken in: b's earliest event is then the run, due when the frames arrive.
        const std::shared_ptr<const timing::scheduler::progress_mark> mark =
            l.sb.progress_mark_of();
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        const auto waiting = [&] {
            const timing::sim_time next = mark->next_event.load();
            return next < departure || next == timing::scheduler::progress_mark::k_none;
        };
        while (waiting() && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::yield();
        }
        ASSERT_FALSE(waiting()) << "b's engine did not take the frames in within 30 s";
        EXPECT_EQ(3U, pool->outstanding()) << "waiting in b's queue";
    }
    EXPECT_EQ(0, received.load());
    EXPECT_EQ(0U, pool->outstanding()) << "returned when b's queue was discarded";
}

// With every frame taken in, the peer may still owe the answer: the ACK it schedules for them
// runs later on its engine, which a backlog of other QPs' frames can keep from running for
// longer than the ACK timeout. Until its engine has run what it had due before the sender's
// present, the peer is behind, whatever its inbox holds.
TEST(InprocThreadedLink, APeerStillRunningWhatWasDueIsBehindWithNothingInItsInbox) {
    threaded_links l;
    ASSERT_NE(nullptr, l.to_b);
    engine_hold hold(l.sb);
    bool behind_while_held = false;
    bool pending_while_held = true;
    wire::run_on_engine_thread(l.sa, [&] {
        behind_while_held = l.a.peer_behind(*l.to_b, l.sa.now());
        pending_while_held = l.a.output_pending(*l.to_b);
    });
    EXPECT_TRUE(behind_while_held) << "b's engine is inside an event due before a's present";
    EXPECT_FALSE(pending_while_held) << "no frame waits in b's inbox";

    hold.release();
    EXPECT_TRUE(l.settles()) << "b's engine did not finish its task within 30 s";
}

// An idle peer whose next event lies ahead (a timer of its own) owes nothing yet: a lost frame
// to it still times out.
TEST(InprocThreadedLink, AnIdlePeerWaitingForItsNextTimerIsNotBehind) {
    std::atomic<bool> ran{false};  // outlives b's scheduler, which holds a task naming it
    threaded_links l;
    ASSERT_NE(nullptr, l.to_b);
    const timing::sim_time later = l.sb.now() + timing::seconds(60);
    l.sb.post_at(later, [&ran] { ran.store(true); });
    const std::shared_ptr<const timing::scheduler::progress_mark> mark = l.sb.progress_mark_of();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (mark->next_event.load() != later && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
    }
    ASSERT_EQ(later, mark->next_event.load()) << "b's engine did not look at its queue in 30 s";
    bool behind = true;
    wire::run_on_engine_thread(l.sa, [&] { behind = l.a.peer_behind(*l.to_b, l.sa.now()); });
    EXPECT_FALSE(behind);
    EXPECT_FALSE(ran.load());
}

}  // namespace
}  // namespace ndksim::integration
