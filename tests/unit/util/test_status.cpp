// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include "util/status.hpp"

namespace ndksim {
namespace {

TEST(StatusName, KnownValuesHaveTheirWindowsNames) {
    EXPECT_EQ(status_name(status::success), "STATUS_SUCCESS");
    EXPECT_EQ(status_name(status::pending), "STATUS_PENDING");
    EXPECT_EQ(status_name(status::connection_invalid), "STATUS_CONNECTION_INVALID");
    EXPECT_EQ(status_name(status::ndis_bad_version), "NDIS_STATUS_BAD_VERSION");
}

TEST(StatusName, UnknownValueIsPrintedInHex) {
    EXPECT_EQ(status_name(static_cast<std::int32_t>(0xC0DE0001)), "STATUS_0xC0DE0001");
}

TEST(StatusSucceeded, WarningsCountAsFailuresLikeNtSuccess) {
    EXPECT_TRUE(succeeded(status::success));
    EXPECT_TRUE(succeeded(status::pending));
    EXPECT_FALSE(succeeded(status::buffer_overflow));
    EXPECT_FALSE(succeeded(status::invalid_parameter));
}

TEST(StatusFormat, FmtPrintsTheName) {
    EXPECT_EQ(fmt::format("{}", status::cancelled), "STATUS_CANCELLED");
}

}  // namespace
}  // namespace ndksim
