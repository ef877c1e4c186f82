// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <memory>

#include "util/inplace_function.hpp"

namespace ndksim::util {
namespace {

TEST(InplaceFunction, CallsTheStoredCallable) {
    int hits = 0;
    inplace_function<int(int), 32> f = [&hits](int x) {
        ++hits;
        return x * 2;
    };
    EXPECT_EQ(f(21), 42);
    EXPECT_EQ(hits, 1);
}

TEST(InplaceFunction, MoveLeavesTheSourceEmpty) {
    inplace_function<int(), 32> a = [] { return 7; };
    inplace_function<int(), 32> b = std::move(a);
    EXPECT_FALSE(static_cast<bool>(a));  // NOLINT(bugprone-use-after-move): the point of the test
    ASSERT_TRUE(static_cast<bool>(b));
    EXPECT_EQ(b(), 7);
}

TEST(InplaceFunction, DestroysCapturesExactlyOnce) {
    auto token = std::make_shared<int>(1);
    {
        inplace_function<void(), 32> a = [token] {};
        EXPECT_EQ(token.use_count(), 2);
        inplace_function<void(), 32> b = std::move(a);
        EXPECT_EQ(token.use_count(), 2);
        b.reset();
        EXPECT_EQ(token.use_count(), 1);
    }
    EXPECT_EQ(token.use_count(), 1);
}

}  // namespace
}  // namespace ndksim::util
