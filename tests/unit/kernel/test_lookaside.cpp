// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <cstdint>

#include "kernel_test.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {
namespace {

using Lookaside = KernelTest;

constexpr ULONG k_tag = 0x6B6F6F4C;  // 'Look'

TEST_F(Lookaside, FreedBlocksAreReusedAndStayPoolBlocksUntilDeleted) {
    NPAGED_LOOKASIDE_LIST list;
    ExInitializeNPagedLookasideList(&list, nullptr, nullptr, 0, 40, k_tag, 0);
    EXPECT_EQ(list.L.Size, 40U);
    EXPECT_EQ(list.L.Tag, k_tag);
    EXPECT_EQ(list.L.Type, NonPagedPoolNx);
    PVOID a = ExAllocateFromNPagedLookasideList(&list);
    PVOID b = ExAllocateFromNPagedLookasideList(&list);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % 16, 0U);
    EXPECT_EQ(ndksim_kernel_pool_live(k_tag), 2U);
    ExFreeToNPagedLookasideList(&list, a);
    EXPECT_EQ(ndksim_kernel_pool_live(k_tag), 2U) << "cached, not freed";
    EXPECT_EQ(ExAllocateFromNPagedLookasideList(&list), a) << "the cached block comes back";
    EXPECT_EQ(list.L.TotalAllocates, 3U);
    EXPECT_EQ(list.L.AllocateMisses, 2U);
    ExFreeToNPagedLookasideList(&list, a);
    ExFreeToNPagedLookasideList(&list, b);
    EXPECT_EQ(list.L.TotalFrees, 3U);
    ExDeleteNPagedLookasideList(&list);
    EXPECT_EQ(ndksim_kernel_pool_live(k_tag), 0U);
}

struct Counting {
    static inline int allocations = 0;
    static inline int frees = 0;
    static PVOID allocate(POOL_TYPE type, SIZE_T bytes, ULONG tag) {
        ++allocations;
        return ExAllocatePoolWithTag(type, bytes, tag);
    }
    static VOID free(PVOID block) {
        ++frees;
        ExFreePoolWithTag(block, k_tag);
    }
};

TEST_F(Lookaside, PagedListUsesTheDriversRoutinesAndRoundsSmallSizesUp) {
    Counting::allocations = 0;
    Counting::frees = 0;
    PAGED_LOOKASIDE_LIST list;
    ExInitializePagedLookasideList(&list, Counting::allocate, Counting::free, 0, 1, k_tag, 0);
    EXPECT_EQ(list.L.Size, LOOKASIDE_MINIMUM_BLOCK_SIZE);
    EXPECT_EQ(list.L.Type, PagedPool);
    PVOID a = ExAllocateFromPagedLookasideList(&list);
    ExFreeToPagedLookasideList(&list, a);
    EXPECT_EQ(ExAllocateFromPagedLookasideList(&list), a);
    ExFreeToPagedLookasideList(&list, a);
    EXPECT_EQ(Counting::allocations, 1);
    ExDeletePagedLookasideList(&list);
    EXPECT_EQ(Counting::frees, 1);
    EXPECT_EQ(ndksim_kernel_pool_live(k_tag), 0U);
}

TEST_F(Lookaside, PagedListAtDispatchLevelIsAViolation) {
    PAGED_LOOKASIDE_LIST list;
    ExInitializePagedLookasideList(&list, nullptr, nullptr, 0, 32, k_tag, 0);
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    PVOID a = nullptr;
    // The list's check and the paged pool's own.
    EXPECT_EQ(violations_of([&] { a = ExAllocateFromPagedLookasideList(&list); }), 2U);
    KeLowerIrql(old);
    ExFreeToPagedLookasideList(&list, a);
    ExDeletePagedLookasideList(&list);
}

TEST_F(Lookaside, CacheHoldsAtMostTheDepth) {
    NPAGED_LOOKASIDE_LIST list;
    ExInitializeNPagedLookasideList(&list, nullptr, nullptr, 0, 16, k_tag, 0);
    const int over = EX_MAXIMUM_LOOKASIDE_DEPTH_BASE + 3;
    std::vector<PVOID> blocks;
    for (int i = 0; i < over; ++i) {
        blocks.push_back(ExAllocateFromNPagedLookasideList(&list));
    }
    for (PVOID b : blocks) {
        ExFreeToNPagedLookasideList(&list, b);
    }
    EXPECT_EQ(QueryDepthSList(&list.L.ListHead), EX_MAXIMUM_LOOKASIDE_DEPTH_BASE);
    EXPECT_EQ(list.L.FreeMisses, 3U);
    EXPECT_EQ(ndksim_kernel_pool_live(k_tag), static_cast<SIZE_T>(EX_MAXIMUM_LOOKASIDE_DEPTH_BASE));
    ExDeleteNPagedLookasideList(&list);
    EXPECT_EQ(ndksim_kernel_pool_live(k_tag), 0U);
}

struct ExCounting {
    static inline PLOOKASIDE_LIST_EX seen = nullptr;
    static PVOID allocate(POOL_TYPE type, SIZE_T bytes, ULONG tag, PLOOKASIDE_LIST_EX list) {
        seen = list;
        return ExAllocatePoolWithTag(type, bytes, tag);
    }
    static VOID free(PVOID block, PLOOKASIDE_LIST_EX list) {
        seen = list;
        ExFreePool(block);
    }
};

TEST_F(Lookaside, ExListWithDefaultAndCustomRoutines) {
    LOOKASIDE_LIST_EX list;
    ASSERT_EQ(ExInitializeLookasideListEx(&list, nullptr, nullptr, NonPagedPoolNx, 0, 64, k_tag, 0),
              STATUS_SUCCESS);
    PVOID a = ExAllocateFromLookasideListEx(&list);
    EXPECT_EQ(ndksim_kernel_pool_live(k_tag), 1U);
    ExFreeToLookasideListEx(&list, a);
    EXPECT_EQ(ExAllocateFromLookasideListEx(&list), a);
    ExFreeToLookasideListEx(&list, a);
    ExDeleteLookasideListEx(&list);
    EXPECT_EQ(ndksim_kernel_pool_live(k_tag), 0U);

    LOOKASIDE_LIST_EX custom;
    ASSERT_EQ(
        ExInitializeLookasideListEx(&custom, ExCounting::allocate, ExCounting::free, PagedPool,
                                    EX_LOOKASIDE_LIST_EX_FLAGS_FAIL_NO_RAISE, 64, k_tag, 0),
        STATUS_SUCCESS);
    PVOID b = ExAllocateFromLookasideListEx(&custom);
    EXPECT_EQ(ExCounting::seen, &custom);
    ExFreeToLookasideListEx(&custom, b);
    ExCounting::seen = nullptr;
    ExDeleteLookasideListEx(&custom);
    EXPECT_EQ(ExCounting::seen, &custom);
    EXPECT_EQ(ndksim_kernel_pool_live(k_tag), 0U);
}

TEST_F(Lookaside, ExListRejectsInvalidFlags) {
    LOOKASIDE_LIST_EX list;
    EXPECT_EQ(ExInitializeLookasideListEx(&list, nullptr, nullptr, NonPagedPoolNx,
                                          EX_LOOKASIDE_LIST_EX_FLAGS_RAISE_ON_FAIL |
                                              EX_LOOKASIDE_LIST_EX_FLAGS_FAIL_NO_RAISE,
                                          64, k_tag, 0),
              STATUS_INVALID_PARAMETER_5);
    EXPECT_EQ(
        ExInitializeLookasideListEx(&list, nullptr, nullptr, NonPagedPoolNx, 0x10, 64, k_tag, 0),
        STATUS_INVALID_PARAMETER_5);
}

}  // namespace
}  // namespace ndksim::kernel::test
