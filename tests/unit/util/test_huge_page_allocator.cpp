// SPDX-License-Identifier: MIT
// The allocator of large random-access tables: blocks of 2 MiB and more are 2 MiB aligned (so
// the kernel can back them with huge pages), smaller ones are ordinary, and a vector keeps its
// contents as it grows across the threshold.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "util/huge_page_allocator.hpp"

namespace ndksim::util {
namespace {

struct alignas(64) wide_slot {
    std::uint64_t value = 0;
    std::byte rest[56]{};
};

TEST(HugePageAllocator, LargeBlocksAreAlignedToAHugePage) {
    huge_page_allocator<wide_slot> a;
    const std::size_t n = k_huge_page_bytes / sizeof(wide_slot) + 1;  // just over 2 MiB
    wide_slot* p = a.allocate(n);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % k_huge_page_bytes, 0U);
    p[0].value = 1;
    p[n - 1].value = 2;  // the whole block is usable
    EXPECT_EQ(p[0].value + p[n - 1].value, 3U);
    a.deallocate(p, n);
}

TEST(HugePageAllocator, SmallBlocksKeepTheTypesAlignment) {
    huge_page_allocator<wide_slot> a;
    wide_slot* p = a.allocate(3);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % alignof(wide_slot), 0U);
    a.deallocate(p, 3);
}

TEST(HugePageAllocator, AVectorKeepsItsContentsAcrossTheThreshold) {
    std::vector<wide_slot, huge_page_allocator<wide_slot>> v;
    const std::size_t n = 3 * k_huge_page_bytes / sizeof(wide_slot);
    for (std::size_t i = 0; i < n; ++i) {
        v.push_back(wide_slot{i, {}});
    }
    EXPECT_GE(v.capacity() * sizeof(wide_slot), 3 * k_huge_page_bytes);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % k_huge_page_bytes, 0U);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
        wrong += v[i].value != i ? 1 : 0;
    }
    EXPECT_EQ(wrong, 0U);
}

TEST(HugePageAllocator, AnImpossibleCountThrows) {
    huge_page_allocator<wide_slot> a;
    EXPECT_THROW((void)a.allocate(SIZE_MAX / 2), std::bad_array_new_length);
}

}  // namespace
}  // namespace ndksim::util
