// SPDX-License-Identifier: MIT
// The kernel runtime through the shared library, as a consumer driver reaches it: only <wdm.h>
// and the exported C symbols.

#include <gtest/gtest.h>

#include <thread>

#include <wdm.h>

namespace {

struct Work {
    LIST_ENTRY link;
    LONG value;
};

// A driver-shaped round trip: a pool-allocated item queued under a spin lock, handed to a
// worker thread that signals completion through an event.
TEST(KernelRuntime, ADriverStyleHandOffWorksThroughTheSharedLibrary) {
    const ULONG tag = 0x6B726F57;  // 'Work'
    LIST_ENTRY queue;
    InitializeListHead(&queue);
    KSPIN_LOCK lock;
    KeInitializeSpinLock(&lock);
    KEVENT done;
    KeInitializeEvent(&done, NotificationEvent, FALSE);

    auto* item = static_cast<Work*>(ExAllocatePool2(POOL_FLAG_NON_PAGED, sizeof(Work), tag));
    ASSERT_NE(item, nullptr);
    EXPECT_EQ(item->value, 0) << "ExAllocatePool2 zeroes";
    item->value = 41;
    KLOCK_QUEUE_HANDLE handle;
    KeAcquireInStackQueuedSpinLock(&lock, &handle);
    InsertTailList(&queue, &item->link);
    KeReleaseInStackQueuedSpinLock(&handle);
    EXPECT_EQ(ndksim_kernel_pool_live(tag), 1U);

    std::thread worker([&] {
        KIRQL old = PASSIVE_LEVEL;
        KeAcquireSpinLock(&lock, &old);
        Work* w = CONTAINING_RECORD(RemoveHeadList(&queue), Work, link);
        KeReleaseSpinLock(&lock, old);
        InterlockedIncrement(&w->value);
        KeSetEvent(&done, 0, FALSE);
    });
    EXPECT_EQ(KeWaitForSingleObject(&done, Executive, KernelMode, FALSE, nullptr), STATUS_SUCCESS);
    worker.join();
    EXPECT_EQ(item->value, 42);
    EXPECT_TRUE(IsListEmpty(&queue));
    ExFreePoolWithTag(item, tag);
    EXPECT_EQ(ndksim_kernel_pool_live(tag), 0U);
    EXPECT_EQ(KeGetCurrentIrql(), PASSIVE_LEVEL);
    EXPECT_EQ(ndksim_kernel_irql_violations(), 0U);
}

}  // namespace
