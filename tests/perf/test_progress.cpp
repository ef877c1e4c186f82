// The estimate of the time left: a message's host cost is a fixed part plus a part per byte,
// fitted to the sizes measured so far.

#include <gtest/gtest.h>

#include <vector>

#include "progress.hpp"

namespace ndksim::perf {
namespace {

TEST(PerfProgress, FitsTheLineThroughTheSmallestAndLargestSize) {
    // 1 us + 1 ns a byte.
    const cost_model m = fit_cost({2, 4096, 1048576}, {1.002e-6, 5.096e-6, 1.049576e-3});
    ASSERT_TRUE(m.known);
    EXPECT_NEAR(m.per_byte, 1e-9, 1e-15);
    EXPECT_NEAR(m.fixed, 1e-6, 1e-12);
    EXPECT_NEAR(m.of(8388608), 1e-6 + 8388608e-9, 1e-9);
}

TEST(PerfProgress, OneSizeSplitsItsCostByThePriorRatio) {
    const cost_model m = fit_cost({2}, {2e-6});
    ASSERT_TRUE(m.known);
    EXPECT_NEAR(m.fixed, m.per_byte * k_prior_bytes, 1e-18);
    EXPECT_NEAR(m.of(2), 2e-6, 1e-15);
    // A message of 8 MiB costs about 2048 times one of 2 bytes, not the same.
    EXPECT_GT(m.of(8388608) / m.of(2), 2000);
}

TEST(PerfProgress, NothingMeasuredIsUnknown) {
    EXPECT_FALSE(fit_cost({}, {}).known);
}

TEST(PerfProgress, AFasterLargerSizeNeverGivesANegativeCost) {
    const cost_model m = fit_cost({2, 65536}, {5e-6, 1e-6});
    EXPECT_EQ(m.per_byte, 0);
    EXPECT_NEAR(m.fixed, 5e-6, 1e-15);
}

}  // namespace
}  // namespace ndksim::perf
