// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include "core/adapter.hpp"

namespace ndksim::core {
namespace {

struct version_case {
    ndk_version requested;
    status expected;
    ndk_version granted;
};

class AdapterVersion : public ::testing::TestWithParam<version_case> {};

TEST_P(AdapterVersion, NegotiatesTheHighestMinorOfTheRequestedMajor) {
    const version_case c = GetParam();
    ndk_version granted{0, 0};
    EXPECT_EQ(adapter::check_version(c.requested, granted), c.expected);
    if (c.expected == status::success) {
        EXPECT_EQ(granted.major, c.granted.major);
        EXPECT_EQ(granted.minor, c.granted.minor);
    }
}

INSTANTIATE_TEST_SUITE_P(Rules, AdapterVersion,
                         ::testing::Values(version_case{{1, 0}, status::success, {1, 2}},
                                           version_case{{1, 1}, status::success, {1, 2}},
                                           version_case{{1, 2}, status::success, {1, 2}},
                                           version_case{{1, 3}, status::ndis_bad_version, {}},
                                           version_case{{2, 0}, status::success, {2, 1}},
                                           version_case{{2, 1}, status::success, {2, 1}},
                                           version_case{{2, 2}, status::ndis_bad_version, {}},
                                           version_case{{0, 1}, status::ndis_bad_version, {}},
                                           version_case{{3, 0}, status::ndis_bad_version, {}}));

}  // namespace
}  // namespace ndksim::core
