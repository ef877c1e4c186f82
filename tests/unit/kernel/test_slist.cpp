// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "kernel_test.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {
namespace {

using SList = KernelTest;

struct alignas(16) Item {
    SLIST_ENTRY entry;
    int value;
};

TEST_F(SList, PushPopIsLastInFirstOutAndTracksTheDepth) {
    SLIST_HEADER head;
    InitializeSListHead(&head);
    EXPECT_EQ(QueryDepthSList(&head), 0);
    EXPECT_EQ(InterlockedPopEntrySList(&head), nullptr);
    Item items[3] = {{{}, 1}, {{}, 2}, {{}, 3}};
    EXPECT_EQ(InterlockedPushEntrySList(&head, &items[0].entry), nullptr);
    EXPECT_EQ(InterlockedPushEntrySList(&head, &items[1].entry), &items[0].entry);
    EXPECT_EQ(ExInterlockedPushEntrySList(&head, &items[2].entry, nullptr), &items[1].entry);
    EXPECT_EQ(QueryDepthSList(&head), 3);
    EXPECT_EQ(head.HeaderX64.Depth, 3U);
    EXPECT_EQ(head.HeaderX64.NextEntry << 4, reinterpret_cast<ULONGLONG>(&items[2].entry))
        << "the Windows encoding of the first entry";
    EXPECT_EQ(FirstEntrySList(&head), &items[2].entry);
    EXPECT_EQ(InterlockedPopEntrySList(&head), &items[2].entry);
    EXPECT_EQ(ExInterlockedPopEntrySList(&head, nullptr), &items[1].entry);
    EXPECT_EQ(QueryDepthSList(&head), 1);
    EXPECT_EQ(InterlockedFlushSList(&head), &items[0].entry);
    EXPECT_EQ(QueryDepthSList(&head), 0);
    EXPECT_EQ(InterlockedFlushSList(&head), nullptr);
}

TEST_F(SList, FlushReturnsTheWholeChain) {
    SLIST_HEADER head;
    InitializeSListHead(&head);
    Item items[2] = {{{}, 1}, {{}, 2}};
    InterlockedPushEntrySList(&head, &items[0].entry);
    InterlockedPushEntrySList(&head, &items[1].entry);
    PSLIST_ENTRY chain = InterlockedFlushSList(&head);
    ASSERT_EQ(chain, &items[1].entry);
    EXPECT_EQ(chain->Next, &items[0].entry);
    EXPECT_EQ(chain->Next->Next, nullptr);
}

TEST_F(SList, ConcurrentPushesAndPopsLoseNothing) {
    SLIST_HEADER head;
    InitializeSListHead(&head);
    constexpr int k_per_thread = 500;
    std::vector<Item> items(4 * k_per_thread);
    std::vector<std::thread> threads;
    std::atomic<int> popped{0};
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < k_per_thread; ++i) {
                InterlockedPushEntrySList(&head, &items[t * k_per_thread + i].entry);
                if (i % 2 == 1 && InterlockedPopEntrySList(&head) != nullptr) {
                    ++popped;
                }
            }
        });
    }
    for (std::thread& t : threads) {
        t.join();
    }
    EXPECT_EQ(QueryDepthSList(&head) + popped.load(), 4 * k_per_thread);
}

TEST_F(SList, MisalignedEntryIsAViolation) {
    SLIST_HEADER head;
    InitializeSListHead(&head);
    alignas(16) unsigned char storage[48] = {};
    auto* misaligned = reinterpret_cast<PSLIST_ENTRY>(storage + 8);
    EXPECT_EQ(violations_of([&] { InterlockedPushEntrySList(&head, misaligned); }), 1U);
    EXPECT_EQ(QueryDepthSList(&head), 0);
}

TEST_F(SList, InterlockedListRoutinesReturnTheFormerNeighbour) {
    LIST_ENTRY head;
    InitializeListHead(&head);
    KSPIN_LOCK lock;
    KeInitializeSpinLock(&lock);
    LIST_ENTRY a;
    LIST_ENTRY b;
    LIST_ENTRY c;
    EXPECT_EQ(ExInterlockedInsertTailList(&head, &a, &lock), nullptr);
    EXPECT_EQ(ExInterlockedInsertTailList(&head, &b, &lock), &a);
    EXPECT_EQ(ExInterlockedInsertHeadList(&head, &c, &lock), &a);
    EXPECT_EQ(KeGetCurrentIrql(), PASSIVE_LEVEL) << "the IRQL is restored";
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(HIGH_LEVEL, &old);
    EXPECT_EQ(violations_of([&] { EXPECT_EQ(ExInterlockedRemoveHeadList(&head, &lock), &c); }), 0U)
        << "any IRQL";
    KeLowerIrql(old);
    EXPECT_EQ(ExInterlockedRemoveHeadList(&head, &lock), &a);
    EXPECT_EQ(ExInterlockedRemoveHeadList(&head, &lock), &b);
    EXPECT_EQ(ExInterlockedRemoveHeadList(&head, &lock), nullptr);
    EXPECT_EQ(lock, 0U);
}

}  // namespace
}  // namespace ndksim::kernel::test
