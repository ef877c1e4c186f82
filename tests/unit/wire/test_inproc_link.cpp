// SPDX-License-Identifier: MIT
// The in-process link's peers: every connection to one adapter shares one peer (and so one
// flight of frames), and a peer resolved after the adapter at an address was replaced reaches
// the new adapter, not the one that left, and frames in flight on one deterministic loop are
// never pending (transport::output_pending).

#include <gtest/gtest.h>

#include <memory>

#include "wire/frame.hpp"
#include "wire/inproc_link.hpp"

namespace ndksim::wire {
namespace {

constexpr timing::sim_time k_latency = 100'000;  // 100 ns
const ip_address k_a = ip_address::v4(10, 77, 0, 1);
const ip_address k_b = ip_address::v4(10, 77, 0, 2);

class InprocLink : public ::testing::Test {
  protected:
    /// An adapter's link at `address` whose received frames are counted in `count`.
    std::unique_ptr<inproc_link> attach(const ip_address& address, int& count) {
        return std::make_unique<inproc_link>(
            address, sched_,
            [&count](frame* f) {
                ++count;
                frame_pool::release(f);
            },
            k_latency);
    }

    /// Sends one 64-byte frame from `from` over `to` and runs the loop until it is idle.
    void send_one(inproc_link& from, transport::peer& to) {
        frame* f = pool_->take();
        f->length = 64;
        from.send(to, f, 0);
        sched_.run_until_idle();
    }

    timing::scheduler sched_{timing::scheduler::options{}};
    std::shared_ptr<frame_pool> pool_ = frame_pool::create(8);
    int a_received_ = 0;
};

TEST_F(InprocLink, ConnectionsToOneAdapterShareOnePeer) {
    int b_received = 0;
    auto a = attach(k_a, a_received_);
    auto b = attach(k_b, b_received);
    const std::shared_ptr<transport::peer> first = a->resolve(k_b);
    const std::shared_ptr<transport::peer> second = a->resolve(k_b);
    ASSERT_NE(nullptr, first);
    EXPECT_EQ(first.get(), second.get());
    EXPECT_EQ(nullptr, a->resolve(ip_address::v4(10, 77, 0, 3))) << "no adapter owns it";
    send_one(*a, *second);
    EXPECT_EQ(1, b_received);
}

TEST_F(InprocLink, APeerResolvedAfterTheAdapterWasReplacedReachesTheNewOne) {
    int old_received = 0;
    int new_received = 0;
    auto a = attach(k_a, a_received_);
    auto b = attach(k_b, old_received);
    const std::shared_ptr<transport::peer> old_peer = a->resolve(k_b);
    b.reset();
    b = attach(k_b, new_received);
    const std::shared_ptr<transport::peer> peer = a->resolve(k_b);
    ASSERT_NE(nullptr, peer);
    EXPECT_NE(old_peer.get(), peer.get());
    send_one(*a, *peer);
    EXPECT_EQ(1, new_received);
    EXPECT_EQ(0, old_received);
    EXPECT_EQ(1U, b->counters().frames_received.load());
}

// Nothing is pending to a peer on the sender's own deterministic loop (the loop's order
// delivers every frame); the threaded case is in tests/integration/test_inproc_window.cpp, which
// the TSan build runs.
TEST_F(InprocLink, NothingIsPendingToAPeerOnTheSendersOwnLoop) {
    int b_received = 0;
    auto a = attach(k_a, a_received_);
    auto b = attach(k_b, b_received);
    const std::shared_ptr<transport::peer> to_b = a->resolve(k_b);
    frame* f = pool_->take();
    f->length = 64;
    a->send(*to_b, f, 0);
    EXPECT_FALSE(a->output_pending(*to_b)) << "in flight on the loop, not waiting on a thread";
    sched_.run_until_idle();
    EXPECT_EQ(1, b_received);
}

}  // namespace
}  // namespace ndksim::wire
