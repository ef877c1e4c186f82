// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <vector>

#include "core/completion_policy.hpp"

namespace ndksim::core {
namespace {

std::vector<bool> draws(completion_policy& p, int n) {
    std::vector<bool> out;
    for (int i = 0; i < n; ++i) {
        out.push_back(p.should_pend());
    }
    return out;
}

TEST(CompletionPolicy, InlineNeverPendsAndPendingAlwaysPends) {
    completion_policy in(completion_style::inline_, 50, 1);
    completion_policy pend(completion_style::pending, 50, 1);
    for (int i = 0; i < 100; ++i) {
        EXPECT_FALSE(in.should_pend());
        EXPECT_TRUE(pend.should_pend());
    }
}

TEST(CompletionPolicy, RandomRepeatsWithTheSameSeed) {
    completion_policy a(completion_style::random, 50, 42);
    completion_policy b(completion_style::random, 50, 42);
    EXPECT_EQ(draws(a, 500), draws(b, 500));
}

TEST(CompletionPolicy, RandomTakesBothPathsAndHonoursTheExtremes) {
    completion_policy half(completion_style::random, 50, 7);
    const auto d = draws(half, 1000);
    const auto pended = std::count(d.begin(), d.end(), true);
    EXPECT_GT(pended, 400);
    EXPECT_LT(pended, 600);
    completion_policy never(completion_style::random, 0, 7);
    completion_policy always(completion_style::random, 100, 7);
    for (int i = 0; i < 100; ++i) {
        EXPECT_FALSE(never.should_pend());
        EXPECT_TRUE(always.should_pend());
    }
}

}  // namespace
}  // namespace ndksim::core
