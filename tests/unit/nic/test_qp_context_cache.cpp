// SPDX-License-Identifier: MIT
// The QP context cache model: fully associative LRU over QP numbers, counters, capacity.

#include <gtest/gtest.h>

#include "nic/qp_context_cache.hpp"

namespace ndksim::nic {
namespace {

TEST(QpContextCache, FirstAccessMissesAndTheNextHits) {
    qp_context_cache c(4, 16);
    EXPECT_FALSE(c.touch(3));
    EXPECT_TRUE(c.touch(3));
    EXPECT_EQ(c.hits(), 1U);
    EXPECT_EQ(c.misses(), 1U);
}

TEST(QpContextCache, CyclingOverMoreQpsThanEntriesMissesEveryTime) {
    qp_context_cache c(3, 16);
    for (int round = 0; round < 5; ++round) {
        for (std::uint32_t qpn = 1; qpn <= 4; ++qpn) {
            EXPECT_FALSE(c.touch(qpn)) << "round " << round << " QP " << qpn;
        }
    }
    EXPECT_EQ(c.hits(), 0U);
    EXPECT_EQ(c.misses(), 20U);
}

TEST(QpContextCache, CyclingOverAsManyQpsAsEntriesMissesOnlyOnce) {
    qp_context_cache c(4, 16);
    for (int round = 0; round < 5; ++round) {
        for (std::uint32_t qpn = 1; qpn <= 4; ++qpn) {
            EXPECT_EQ(c.touch(qpn), round > 0);
        }
    }
    EXPECT_EQ(c.misses(), 4U);
    EXPECT_EQ(c.hits(), 16U);
}

TEST(QpContextCache, TheLeastRecentlyUsedContextIsEvicted) {
    qp_context_cache c(2, 16);
    c.touch(1);
    c.touch(2);
    EXPECT_TRUE(c.touch(1));   // 2 is now the least recently used
    EXPECT_FALSE(c.touch(3));  // evicts 2
    EXPECT_TRUE(c.touch(1));
    EXPECT_FALSE(c.touch(2));  // evicts 3
    EXPECT_FALSE(c.touch(3));
}

TEST(QpContextCache, ZeroEntriesMissAlways) {
    qp_context_cache c(0, 16);
    EXPECT_EQ(c.capacity(), 0U);
    EXPECT_FALSE(c.touch(1));
    EXPECT_FALSE(c.touch(1));
    EXPECT_EQ(c.misses(), 2U);
}

TEST(QpContextCache, QpNumbersOutOfRangeMissWithoutTouchingTheCache) {
    qp_context_cache c(2, 16);
    c.touch(1);
    EXPECT_FALSE(c.touch(16));
    EXPECT_FALSE(c.touch(0xFFFFFFU));
    EXPECT_TRUE(c.touch(1));
}

TEST(QpContextCache, MoreEntriesThanQpNumbersAreNotAllocated) {
    qp_context_cache c(1'000'000'000, 16);
    EXPECT_EQ(c.capacity(), 16U);
}

TEST(QpContextCache, ASingleEntryHoldsTheLastQp) {
    qp_context_cache c(1, 16);
    EXPECT_FALSE(c.touch(5));
    EXPECT_TRUE(c.touch(5));
    EXPECT_FALSE(c.touch(6));
    EXPECT_FALSE(c.touch(5));
}

}  // namespace
}  // namespace ndksim::nic
