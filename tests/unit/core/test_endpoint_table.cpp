// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include "core/endpoint_table.hpp"

namespace ndksim::core {
namespace {

TEST(EndpointTable, PortZeroPicksFromTheEphemeralRange) {
    endpoint_table t;
    std::uint16_t a = 0;
    std::uint16_t b = 0;
    ASSERT_EQ(t.reserve(a), status::success);
    ASSERT_EQ(t.reserve(b), status::success);
    EXPECT_GE(a, endpoint_table::k_ephemeral_first);
    EXPECT_GE(b, endpoint_table::k_ephemeral_first);
    EXPECT_NE(a, b);
}

TEST(EndpointTable, ReservedPortIsASharingViolation) {
    endpoint_table t;
    std::uint16_t p = 445;
    ASSERT_EQ(t.reserve(p), status::success);
    std::uint16_t again = 445;
    EXPECT_EQ(t.reserve(again), status::sharing_violation);
}

TEST(EndpointTable, PortIsFreeOnlyWhenTheLastHolderReleases) {
    endpoint_table t;
    std::uint16_t p = 5000;
    ASSERT_EQ(t.reserve(p), status::success);
    t.acquire(p);  // an accepted connector pins its listener's port (rule 25)
    t.release(p);
    EXPECT_TRUE(t.in_use(p));
    t.release(p);
    EXPECT_FALSE(t.in_use(p));
    std::uint16_t again = 5000;
    EXPECT_EQ(t.reserve(again), status::success);
}

TEST(EndpointTable, ExhaustedEphemeralRangeIsTooManyAddresses) {
    endpoint_table t;
    constexpr int range = endpoint_table::k_ephemeral_last - endpoint_table::k_ephemeral_first + 1;
    for (int i = 0; i < range; ++i) {
        std::uint16_t p = 0;
        ASSERT_EQ(t.reserve(p), status::success) << "port " << i;
    }
    std::uint16_t p = 0;
    EXPECT_EQ(t.reserve(p), status::too_many_addresses);
}

}  // namespace
}  // namespace ndksim::core
