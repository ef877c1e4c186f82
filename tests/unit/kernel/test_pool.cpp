// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <cstdint>

#include "kernel_test.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {
namespace {

using Pool = KernelTest;

// Tags as drivers write them: 'Tst1' stored little-endian.
constexpr ULONG tag(char a, char b, char c, char d) {
    return static_cast<ULONG>(static_cast<unsigned char>(a)) |
           static_cast<ULONG>(static_cast<unsigned char>(b)) << 8 |
           static_cast<ULONG>(static_cast<unsigned char>(c)) << 16 |
           static_cast<ULONG>(static_cast<unsigned char>(d)) << 24;
}

bool all_zero(const void* p, SIZE_T n) {
    const auto* bytes = static_cast<const unsigned char*>(p);
    for (SIZE_T i = 0; i < n; ++i) {
        if (bytes[i] != 0) {
            return false;
        }
    }
    return true;
}

TEST_F(Pool, LiveAllocationsAreCountedByTag) {
    const ULONG a = tag('P', 't', 'A', '1');
    const ULONG b = tag('P', 't', 'B', '1');
    void* p1 = ExAllocatePoolWithTag(NonPagedPoolNx, 100, a);
    void* p2 = ExAllocatePoolWithTagPriority(NonPagedPool, 100, a, NormalPoolPriority);
    void* p3 = ExAllocatePool2(POOL_FLAG_PAGED, 100, b);
    ASSERT_NE(p1, nullptr);
    ASSERT_NE(p2, nullptr);
    ASSERT_NE(p3, nullptr);
    EXPECT_EQ(ndksim_kernel_pool_live(a), 2U);
    EXPECT_EQ(ndksim_kernel_pool_live(b), 1U);
    EXPECT_GE(ndksim_kernel_pool_live(0), 3U);
    EXPECT_GE(ndksim_kernel_pool_report(), 3U);
    ExFreePoolWithTag(p1, a);
    ExFreePool(p2);
    ExFreePoolWithTag(p3, b);
    EXPECT_EQ(ndksim_kernel_pool_live(a), 0U);
    EXPECT_EQ(ndksim_kernel_pool_live(b), 0U);
}

TEST_F(Pool, PageSizedAllocationsArePageAligned) {
    const ULONG t = tag('P', 't', 'A', 'l');
    for (const SIZE_T size : {SIZE_T{PAGE_SIZE}, SIZE_T{PAGE_SIZE + 1}, SIZE_T{3 * PAGE_SIZE}}) {
        void* p = ExAllocatePool2(POOL_FLAG_NON_PAGED, size, t);
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % PAGE_SIZE, 0U) << size;
        ExFreePoolWithTag(p, t);
    }
    void* small = ExAllocatePoolWithTag(NonPagedPoolNx, 24, t);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(small) % 16, 0U);
    ExFreePoolWithTag(small, t);
}

TEST_F(Pool, Pool2ZeroesUnlessUninitializedIsAsked) {
    const ULONG t = tag('P', 't', 'Z', 'r');
    auto* p = static_cast<unsigned char*>(ExAllocatePool2(POOL_FLAG_NON_PAGED, 4096, t));
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(all_zero(p, 4096));
    ExFreePoolWithTag(p, t);
    void* z = ExAllocatePoolZero(NonPagedPoolNx, 300, t);
    ASSERT_NE(z, nullptr);
    EXPECT_TRUE(all_zero(z, 300));
    ExFreePoolWithTag(z, t);
    void* u = ExAllocatePool2(POOL_FLAG_NON_PAGED | POOL_FLAG_UNINITIALIZED, 64, t);
    EXPECT_NE(u, nullptr);
    ExFreePoolWithTag(u, t);
}

TEST_F(Pool, Pool2NeedsExactlyOnePoolKind) {
    const ULONG t = tag('P', 't', 'K', 'n');
    EXPECT_EQ(ExAllocatePool2(POOL_FLAG_UNINITIALIZED, 64, t), nullptr);
    EXPECT_EQ(ExAllocatePool2(POOL_FLAG_NON_PAGED | POOL_FLAG_PAGED, 64, t), nullptr);
    EXPECT_EQ(ndksim_kernel_pool_live(t), 0U);
}

TEST_F(Pool, DoubleFreeIsAViolation) {
    const ULONG t = tag('P', 't', 'D', 'f');
    void* p = ExAllocatePool2(POOL_FLAG_NON_PAGED, 64, t);
    ExFreePoolWithTag(p, t);
    EXPECT_EQ(violations_of([&] { ExFreePoolWithTag(p, t); }), 1U);
}

TEST_F(Pool, FreeingNullIsAViolation) {
    EXPECT_EQ(violations_of([] { ExFreePool(nullptr); }), 1U);
}

TEST_F(Pool, FreeWithTheWrongTagIsAViolation) {
    const ULONG t = tag('P', 't', 'W', 't');
    void* p = ExAllocatePool2(POOL_FLAG_NON_PAGED, 64, t);
    EXPECT_EQ(violations_of([&] { ExFreePoolWithTag(p, tag('O', 't', 'h', 'r')); }), 1U);
    EXPECT_EQ(ndksim_kernel_pool_live(t), 0U) << "the block is freed anyway";
}

TEST_F(Pool, PagedPoolAtDispatchLevelIsAViolation) {
    const ULONG t = tag('P', 't', 'P', 'g');
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    void* paged = nullptr;
    EXPECT_EQ(violations_of([&] { paged = ExAllocatePool2(POOL_FLAG_PAGED, 64, t); }), 1U);
    void* nonpaged = nullptr;
    EXPECT_EQ(violations_of([&] { nonpaged = ExAllocatePoolWithTag(NonPagedPoolNx, 64, t); }), 0U);
    ExFreePoolWithTag(nonpaged, t);
    KeLowerIrql(old);
    ExFreePoolWithTag(paged, t);
    EXPECT_EQ(violations_of([&] {
                  KeRaiseIrql(DISPATCH_LEVEL, &old);
                  void* p = ExAllocatePoolWithTag(PagedPool, 8, t);
                  KeLowerIrql(old);
                  ExFreePoolWithTag(p, t);
              }),
              1U);
}

}  // namespace
}  // namespace ndksim::kernel::test
