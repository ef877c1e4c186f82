// SPDX-License-Identifier: MIT
// The departure queue: consecutive packets of one message join a run until it is full or
// closed (or the memory unit's generation changes), runs leave oldest first, the ring grows without
// reordering or losing a run, and clear counts the packets it drops.

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
    for (std::uint32_t i = 0; i <= n; ++i) {
        q_.add(a_, peer_, i, 100 + i, nullptr, 0);
    }
    ASSERT_EQ(q_.size(), 2U) << "a full run, and one packet in a second";
    const departure_run& run = q_.front();
    EXPECT_EQ(run.wqe, &a_);
    EXPECT_EQ(run.first_packet, 0U);
    EXPECT_EQ(run.count, n);
    EXPECT_EQ(run.last_bit[0], 100U);
    EXPECT_EQ(run.last_bit[n - 1], 100U + n - 1);
    q_.pop_front();
    ASSERT_FALSE(q_.empty());
    EXPECT_EQ(q_.front().first_packet, n);
    EXPECT_EQ(q_.front().count, 1U);
    q_.pop_front();
    EXPECT_TRUE(q_.empty());
}

TEST_F(DepartureQueue, AnotherMessageAGapOrAClosedRunStartsANewRun) {
    q_.add(a_, peer_, 0, 1, nullptr, 0);
    q_.add(b_, peer_, 0, 2, nullptr, 0);  // another message
    q_.add(b_, peer_, 2, 3, nullptr, 0);  // not consecutive
    q_.close();
    q_.add(b_, peer_, 3, 4, nullptr, 0);  // consecutive, but the run was closed
    EXPECT_EQ(q_.size(), 4U);
    EXPECT_EQ(q_.runs_started(), 4U);
    for (; !q_.empty(); q_.pop_front()) {
        EXPECT_EQ(q_.front().count, 1U);
    }
}

TEST_F(DepartureQueue, TheRingGrowsKeepingTheOrderAndClearCountsWhatItDrops) {
    for (std::uint32_t i = 0; i < 100; ++i) {
        q_.add(i % 2 == 0 ? a_ : b_, peer_, i, i, nullptr, 0);
    }
    for (std::uint32_t i = 0; i < 40; ++i) {
        ASSERT_EQ(q_.front().first_packet, i);
        q_.pop_front();
    }
    for (std::uint32_t i = 100; i < 300; ++i) {
        q_.add(i % 2 == 0 ? a_ : b_, peer_, i, i, nullptr, 0);
    }
    for (std::uint32_t i = 40; i < 200; ++i) {
        ASSERT_EQ(q_.front().first_packet, i);
        ASSERT_EQ(q_.front().last_bit[0], i);
        q_.pop_front();
    }
    EXPECT_EQ(peer_.use_count(), 101) << "each queued run holds the peer";
    EXPECT_EQ(q_.runs_started() - q_.runs_left(), q_.size());
    EXPECT_EQ(q_.clear(), 100U);
    EXPECT_EQ(q_.runs_left(), 300U) << "dropped runs count as gone";
    EXPECT_TRUE(q_.empty());
    EXPECT_EQ(peer_.use_count(), 1);
}

// A run keeps where each packet's payload lies and the memory unit's generation it was found
// under; a packet found under another generation starts a run of its own, so a build never
// takes a payload whose translation the unit may have changed since.
TEST_F(DepartureQueue, ARunKeepsItsPayloadsAndTheirGeneration) {
    std::byte bytes[3] = {};
    q_.add(a_, peer_, 0, 10, &bytes[0], 7);
    q_.add(a_, peer_, 1, 11, &bytes[1], 7);
    q_.add(a_, peer_, 2, 12, &bytes[2], 8);  // the unit changed in between
    ASSERT_EQ(q_.size(), 2U);
    EXPECT_EQ(q_.front().count, 2U);
    EXPECT_EQ(q_.front().generation, 7U);
    EXPECT_EQ(q_.front().payload[0], &bytes[0]);
    EXPECT_EQ(q_.front().payload[1], &bytes[1]);
    q_.pop_front();
    EXPECT_EQ(q_.front().first_packet, 2U);
    EXPECT_EQ(q_.front().generation, 8U);
    EXPECT_EQ(q_.front().payload[0], &bytes[2]);
}

TEST_F(DepartureQueue, TheScheduledFlagIsTheRequestersToKeep) {
    EXPECT_FALSE(q_.build_scheduled());
    q_.set_build_scheduled(true);
    q_.add(a_, peer_, 0, 0, nullptr, 0);
    q_.clear();
    EXPECT_TRUE(q_.build_scheduled()) << "a build already scheduled stays scheduled";
    q_.set_build_scheduled(false);
    EXPECT_FALSE(q_.build_scheduled());
}

}  // namespace
}  // namespace ndksim::nic
