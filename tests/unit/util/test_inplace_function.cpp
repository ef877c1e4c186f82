// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <cstdint>
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

// Captures of plain values arrive intact through a move and a move assignment, and the emptied
// sources stay empty.
TEST(InplaceFunction, TriviallyCopyableCapturesSurviveMoves) {
    const std::uint64_t a_value = 0x0123456789abcdefULL;
    const double b_value = 2.5;
    int* const where = nullptr;
    inplace_function<std::uint64_t(), 64> a = [a_value, b_value, where] {
        return a_value + static_cast<std::uint64_t>(b_value * 2) + (where == nullptr ? 1 : 0);
    };
    inplace_function<std::uint64_t(), 64> b = std::move(a);
    inplace_function<std::uint64_t(), 64> c;
    c = std::move(b);
    EXPECT_FALSE(static_cast<bool>(a));  // NOLINT(bugprone-use-after-move): the point of the test
    EXPECT_FALSE(static_cast<bool>(b));  // NOLINT(bugprone-use-after-move): the point of the test
    ASSERT_TRUE(static_cast<bool>(c));
    EXPECT_EQ(c(), 0x0123456789abcdefULL + 5 + 1);
    c.reset();
    EXPECT_FALSE(static_cast<bool>(c));
}

// Replacing a callable that owns something with one that does not (and back) destroys the
// owned captures once, whichever kind held the storage before.
TEST(InplaceFunction, EmplaceAcrossKindsDestroysOnce) {
    auto token = std::make_shared<int>(1);
    inplace_function<int(), 32> f = [token] { return 1; };
    EXPECT_EQ(token.use_count(), 2);
    f.emplace([] { return 2; });
    EXPECT_EQ(token.use_count(), 1);
    EXPECT_EQ(f(), 2);
    f.emplace([token] { return 3; });
    EXPECT_EQ(token.use_count(), 2);
    EXPECT_EQ(f(), 3);
    f.emplace([] { return 4; });
    EXPECT_EQ(token.use_count(), 1);
    EXPECT_EQ(f(), 4);
}

}  // namespace
}  // namespace ndksim::util
