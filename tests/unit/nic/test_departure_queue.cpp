// SPDX-License-Identifier: MIT
// The departure queue: consecutive packets of one message join a run until it is full or
// closed, a run is announced for scheduling only when it is the one queued, runs leave oldest
// first, and the ring grows without reordering or losing a run.

#include <gtest/gtest.h>

#include <memory>

#include "nic/departure_queue.hpp"

namespace ndksim::nic {
namespace {

class DepartureQueue : public ::testing::Test {
  protected:
    core::send_wqe a_;
    core::send_wqe b_;
    std::shared_ptr<wire::transport::peer> peer_ = std::make_shared<wire::transport::peer>();
    departure_queue q_;
};

TEST_F(DepartureQueue, ConsecutivePacketsOfOneMessageJoinARunUntilItIsFull) {
    const std::uint32_t n = departure_run::k_max_packets;
    const std::uint64_t first = q_.add(a_, peer_, 0, 100);
    EXPECT_NE(first, 0U) << "the only run queued is announced";
    for (std::uint32_t i = 1; i < n; ++i) {
        EXPECT_EQ(q_.add(a_, peer_, i, 100 + i), 0U);
    }
    EXPECT_EQ(q_.add(a_, peer_, n, 100 + n), 0U) << "a second run waits behind the first";
    ASSERT_FALSE(q_.empty());
    const departure_run& run = q_.front();
    EXPECT_EQ(run.id, first);
    EXPECT_EQ(run.wqe, &a_);
    EXPECT_EQ(run.first_packet, 0U);
    EXPECT_EQ(run.count, n);
    EXPECT_EQ(run.last_bit[n - 1], 100U + n - 1);
    q_.pop_front();
    ASSERT_FALSE(q_.empty());
    EXPECT_EQ(q_.front().first_packet, n);
    EXPECT_EQ(q_.front().count, 1U);
    EXPECT_GT(q_.front().id, first);
    q_.pop_front();
    EXPECT_TRUE(q_.empty());
}

TEST_F(DepartureQueue, AnotherMessageAGapOrAClosedRunStartsANewRun) {
    ASSERT_NE(q_.add(a_, peer_, 0, 1), 0U);
    EXPECT_EQ(q_.add(b_, peer_, 0, 2), 0U);  // another message
    EXPECT_EQ(q_.add(b_, peer_, 2, 3), 0U);  // not consecutive
    q_.close();
    EXPECT_EQ(q_.add(b_, peer_, 3, 4), 0U);  // consecutive, but the run was closed
    std::uint32_t runs = 0;
    for (; !q_.empty(); q_.pop_front()) {
        EXPECT_EQ(q_.front().count, 1U);
        ++runs;
    }
    EXPECT_EQ(runs, 4U);
}

TEST_F(DepartureQueue, TheRingGrowsKeepingTheOrderAndClearEmptiesIt) {
    for (std::uint32_t i = 0; i < 100; ++i) {
        q_.add(i % 2 == 0 ? a_ : b_, peer_, i, i);
    }
    for (std::uint32_t i = 0; i < 40; ++i) {
        ASSERT_EQ(q_.front().first_packet, i);
        q_.pop_front();
    }
    for (std::uint32_t i = 100; i < 300; ++i) {
        q_.add(i % 2 == 0 ? a_ : b_, peer_, i, i);
    }
    for (std::uint32_t i = 40; i < 200; ++i) {
        ASSERT_EQ(q_.front().first_packet, i);
        ASSERT_EQ(q_.front().last_bit[0], i);
        q_.pop_front();
    }
    EXPECT_EQ(peer_.use_count(), 101) << "each queued run holds the peer";
    q_.clear();
    EXPECT_TRUE(q_.empty());
    EXPECT_EQ(peer_.use_count(), 1);
    EXPECT_NE(q_.add(a_, peer_, 0, 0), 0U) << "after clear the next run is announced again";
}

}  // namespace
}  // namespace ndksim::nic
