// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <limits>

#include "mem/page.hpp"

namespace ndksim::mem {
namespace {

constexpr std::uint64_t max64 = std::numeric_limits<std::uint64_t>::max();

TEST(PageGeometry, SpanPagesMatchesTheWindowsMacroForNonEmptyRanges) {
    for (std::uint64_t va = 0x1000; va < 0x1000 + 2 * page_size; va += 0x3F) {
        for (std::uint64_t len = 1; len < 3 * page_size; len += 0x101) {
            const std::uint64_t macro = ((va & 0xFFF) + len + 0xFFF) >> 12;
            EXPECT_EQ(span_pages(va, len), macro) << va << " " << len;
        }
    }
}

TEST(PageGeometry, SpanPagesOfAnEmptyRangeIsZero) {
    EXPECT_EQ(span_pages(0x1234, 0), 0u);
}

TEST(PageGeometry, SpanPagesDoesNotWrapNearTwoToThe64) {
    // Bytes 0xFFF .. 0xFFF + 2^64 - 2: the first page, 2^52 - 1 full pages, and one more.
    EXPECT_EQ(span_pages(0xFFF, max64), (max64 >> 12) + 2);
    EXPECT_EQ(span_pages(0, max64), (max64 >> 12) + 1);
}

TEST(PageGeometry, AlignAndOffsetSplitAnAddress) {
    EXPECT_EQ(page_align(0x12345), 0x12000u);
    EXPECT_EQ(byte_offset(0x12345), 0x345u);
    EXPECT_EQ(page_number(0x12345), 0x12u);
}

TEST(RangeInside, AcceptsRangesWithinAndAtTheEdges) {
    EXPECT_TRUE(range_inside(100, 50, 100, 50));
    EXPECT_TRUE(range_inside(100, 50, 120, 30));
    EXPECT_TRUE(range_inside(100, 50, 150, 0));
}

TEST(RangeInside, RejectsRangesLeavingEitherEnd) {
    EXPECT_FALSE(range_inside(100, 50, 99, 1));
    EXPECT_FALSE(range_inside(100, 50, 120, 31));
    EXPECT_FALSE(range_inside(100, 50, 151, 0));
}

TEST(RangeInside, RejectsWrappingRangesWithoutOverflow) {
    EXPECT_FALSE(range_inside(100, 50, 120, max64));
    EXPECT_FALSE(range_inside(max64 - 10, 10, max64 - 5, 10));
    EXPECT_TRUE(range_inside(max64 - 10, 10, max64 - 5, 5));
}

TEST(RangeFits, DetectsWrap) {
    EXPECT_TRUE(range_fits(max64 - 1, 1));
    EXPECT_FALSE(range_fits(max64 - 1, 2));
}

}  // namespace
}  // namespace ndksim::mem
