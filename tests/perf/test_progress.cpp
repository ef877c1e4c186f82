// SPDX-License-Identifier: MIT
// The estimate of the time left: a message's host cost is a fixed part plus a part per byte,
// fitted to the sizes measured so far.

#include <gtest/gtest.h>

#include <vector>

#include "progress.hpp"

namespace ndksim::perf {
namespace {

TEST(PerfProgress, FitsTheFixedPartToSmallSizesAndTheSlopeToTheLargest) {
    // 1 us + 1 ns a byte, with the 64-byte size disturbed (a busy moment of the host).
    const cost_model m = fit_cost({2, 64, 1024, 1048576}, {1.002e-6, 9e-6, 2.024e-6, 1.049576e-3});
    ASSERT_TRUE(m.known);
    EXPECT_NEAR(m.fixed, 2.024e-6, 1e-12);  // the median of 1.002, 2.024 and 9 us
    EXPECT_NEAR(m.per_byte, (1.049576e-3 - 2.024e-6) / 1048576, 1e-15);
    EXPECT_NEAR(m.of(8388608), 2.024e-6 + 8388608 * m.per_byte, 1e-12);
}

TEST(PerfProgress, SmallSizesAloneSplitTheirCostByThePriorRatio) {
    // 2 and 4 bytes cannot show a per-byte cost: the prior stands in.
    const cost_model m = fit_cost({2, 4}, {2e-6, 2.5e-6});
    ASSERT_TRUE(m.known);
    EXPECT_NEAR(m.fixed, 2e-6, 1e-15);
    EXPECT_NEAR(m.per_byte, 2e-6 / k_prior_bytes, 1e-18);
    // A message of 8 MiB is estimated at about 2049 times one of 2 bytes, not the same.
    EXPECT_GT(m.of(8388608) / m.of(2), 2000);
}

TEST(PerfProgress, OneLargeSizeIsSplitByThePriorRatio) {
    const cost_model m = fit_cost({65536}, {69632e-9});  // 1 ns a byte of 64 KiB + 4 KiB
    EXPECT_NEAR(m.fixed, 4096e-9, 1e-15);
    EXPECT_NEAR(m.per_byte, 1e-9, 1e-18);
}

TEST(PerfProgress, NothingMeasuredIsUnknown) {
    EXPECT_FALSE(fit_cost({}, {}).known);
}

TEST(PerfProgress, ALargeSizeFasterThanTheFixedPartGivesNoNegativeCost) {
    const cost_model m = fit_cost({2, 65536}, {5e-6, 1e-6});
    EXPECT_EQ(m.per_byte, 0);
    EXPECT_NEAR(m.fixed, 5e-6, 1e-15);
}

}  // namespace
}  // namespace ndksim::perf
