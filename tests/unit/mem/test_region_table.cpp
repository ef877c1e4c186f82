// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include "mem/region_table.hpp"

namespace ndksim::mem {
namespace {

TEST(RegionTable, IndexZeroIsNeverAllocated) {
    region_table t(8);
    for (int i = 0; i < 8; ++i) {
        EXPECT_NE(t.allocate(slot_kind::region), 0u);
    }
    EXPECT_EQ(t.find(0), nullptr);
}

TEST(RegionTable, RefusesAllocationBeyondCapacity) {
    region_table t(2);
    EXPECT_NE(t.allocate(slot_kind::region), 0u);
    EXPECT_NE(t.allocate(slot_kind::window), 0u);
    EXPECT_EQ(t.allocate(slot_kind::region), 0u);
    EXPECT_EQ(t.live(), 2u);
}

TEST(RegionTable, ReusedSlotNeverRepeatsTheTokenOfItsPreviousLife) {
    region_table t(1);
    const std::uint32_t a = t.allocate(slot_kind::region);
    const std::uint32_t old_token = t.active_token(a);
    t.release(a);
    const std::uint32_t b = t.allocate(slot_kind::window);
    ASSERT_EQ(a, b);
    EXPECT_NE(t.active_token(b), old_token);
    EXPECT_EQ(token_index(t.active_token(b)), a);
}

TEST(RegionTable, FreedSlotsAreReusedOldestFirst) {
    region_table t(4);
    const std::uint32_t a = t.allocate(slot_kind::region);
    const std::uint32_t b = t.allocate(slot_kind::region);
    t.release(b);
    t.release(a);
    EXPECT_EQ(t.allocate(slot_kind::region), b);
    EXPECT_EQ(t.allocate(slot_kind::region), a);
}

TEST(RegionTable, FindChecksLivenessAndKind) {
    region_table t(4);
    const std::uint32_t a = t.allocate(slot_kind::region);
    EXPECT_NE(t.find(a, slot_kind::region), nullptr);
    EXPECT_EQ(t.find(a, slot_kind::window), nullptr);
    EXPECT_EQ(t.find(a + 1), nullptr);
    t.release(a);
    EXPECT_EQ(t.find(a), nullptr);
}

TEST(RegionTable, ReleaseClearsThePayload) {
    region_table t(4);
    const std::uint32_t a = t.allocate(slot_kind::region);
    ASSERT_TRUE(t.find(a)->reg.pages.assign(3));
    t.find(a)->reg.state = region_state::valid;
    t.release(a);
    const std::uint32_t b = t.allocate(slot_kind::region);
    ASSERT_EQ(a, b);
    EXPECT_EQ(t.find(b)->reg.pages.capacity(), 0u);
    EXPECT_EQ(t.find(b)->reg.state, region_state::unregistered);
}

// prefetch() is a hint from any thread: any index, in range or not, before and after the table
// grew (its storage moved), changes nothing a lookup sees.
TEST(RegionTable, PrefetchOfAnyIndexChangesNothing) {
    region_table t(100'000);
    const std::uint32_t first = t.allocate(slot_kind::region);
    const std::uint32_t token = t.active_token(first);
    for (std::uint32_t i : {0U, first, 2U, 1'000U, 0xFFFF'FFFFU}) {
        t.prefetch(i);
    }
    for (int i = 0; i < 50'000; ++i) {  // grows the table past 2 MiB: its storage moves
        ASSERT_NE(t.allocate(slot_kind::window), 0U);
    }
    for (std::uint32_t i : {0U, first, 40'000U, 50'001U, 60'000U, 0xFFFF'FFFFU}) {
        t.prefetch(i);
    }
    EXPECT_EQ(t.live(), 50'001U);
    ASSERT_NE(t.find(first, slot_kind::region), nullptr);
    EXPECT_EQ(t.active_token(first), token);
    EXPECT_EQ(t.find(60'000), nullptr);
}

}  // namespace
}  // namespace ndksim::mem
