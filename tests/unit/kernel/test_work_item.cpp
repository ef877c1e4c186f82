// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <mutex>
#include <thread>
#include <vector>

#include "test_driver.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {
namespace {

using WorkItem = DriverTest;

struct Seen {
    std::mutex mutex;
    std::vector<int> order;
    KIRQL irql = HIGH_LEVEL;
    PDEVICE_OBJECT device = nullptr;
    PVOID io_object = nullptr;
    PIO_WORKITEM item = nullptr;
    std::thread::id thread;
    Tally ran;
};

struct Job {
    Seen* seen;
    int tag;
};

VOID record(PDEVICE_OBJECT device, PVOID context) {
    auto* job = static_cast<Job*>(context);
    {
        const std::lock_guard lock(job->seen->mutex);
        job->seen->order.push_back(job->tag);
        job->seen->irql = KeGetCurrentIrql();
        job->seen->device = device;
        job->seen->thread = std::this_thread::get_id();
    }
    job->seen->ran.bump();
}

VOID record_ex(PVOID io_object, PVOID context, PIO_WORKITEM item) {
    auto* seen = static_cast<Seen*>(context);
    {
        const std::lock_guard lock(seen->mutex);
        seen->io_object = io_object;
        seen->item = item;
        seen->irql = KeGetCurrentIrql();
    }
    seen->ran.bump();
}

// A work item that occupies a worker until its event is set.
struct Gate {
    KEVENT open;
    KEVENT entered;
    PIO_WORKITEM item;
    static VOID routine(PDEVICE_OBJECT, PVOID context) {
        auto* g = static_cast<Gate*>(context);
        KeSetEvent(&g->entered, 0, FALSE);
        LARGE_INTEGER timeout = patience();
        KeWaitForSingleObject(&g->open, Executive, KernelMode, FALSE, &timeout);
    }
    explicit Gate(PDEVICE_OBJECT device) : item(IoAllocateWorkItem(device)) {
        KeInitializeEvent(&open, NotificationEvent, FALSE);
        KeInitializeEvent(&entered, NotificationEvent, FALSE);
    }
    ~Gate() { IoFreeWorkItem(item); }
    void occupy() {
        IoQueueWorkItem(item, &Gate::routine, DelayedWorkQueue, this);
        LARGE_INTEGER timeout = patience();
        ASSERT_EQ(KeWaitForSingleObject(&entered, Executive, KernelMode, FALSE, &timeout),
                  STATUS_SUCCESS);
    }
    void let_go() { KeSetEvent(&open, 0, FALSE); }
};

TEST_F(WorkItem, RoutineRunsAtPassiveLevelOnAWorkerThread) {
    PIO_WORKITEM item = IoAllocateWorkItem(device_);
    ASSERT_NE(item, nullptr);
    EXPECT_EQ(ndksim_kernel_pool_live(0x6B576F49), 1U) << "allocated from pool, tag 'IoWk'";
    Seen seen;
    Job job{&seen, 1};
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    EXPECT_EQ(violations_of([&] { IoQueueWorkItem(item, record, DelayedWorkQueue, &job); }), 0U)
        << "queueing is allowed at DISPATCH_LEVEL";
    KeLowerIrql(old);
    ASSERT_TRUE(seen.ran.reaches(1));
    ASSERT_TRUE(eventually([&] { return ndksim_kernel_work_items_pending(driver_) == 0; }));
    EXPECT_EQ(seen.irql, PASSIVE_LEVEL);
    EXPECT_EQ(seen.device, device_);
    EXPECT_NE(seen.thread, std::this_thread::get_id());
    IoFreeWorkItem(item);
    EXPECT_EQ(ndksim_kernel_pool_live(0x6B576F49), 0U);
}

TEST_F(WorkItem, ExRoutineGetsTheIoObjectAndTheItem) {
    std::vector<unsigned char> storage(IoSizeofWorkItem());
    auto* item = reinterpret_cast<PIO_WORKITEM>(storage.data());
    IoInitializeWorkItem(driver_, item);
    Seen seen;
    IoQueueWorkItemEx(item, record_ex, CriticalWorkQueue, &seen);
    ASSERT_TRUE(seen.ran.reaches(1));
    ASSERT_TRUE(eventually([&] { return ndksim_kernel_work_items_pending(driver_) == 0; }));
    EXPECT_EQ(seen.io_object, driver_);
    EXPECT_EQ(seen.item, item);
    EXPECT_EQ(seen.irql, PASSIVE_LEVEL);
    IoUninitializeWorkItem(item);
}

TEST_F(WorkItem, QueuesAreServedByPriorityAndEachInFifoOrder) {
    // Occupy every worker, then free one, which then runs the queued items one by one.
    std::vector<std::unique_ptr<Gate>> gates;
    for (int i = 0; i < 4; ++i) {
        gates.push_back(std::make_unique<Gate>(device_));
        gates.back()->occupy();
    }
    Seen seen;
    Job jobs[5] = {{&seen, 1}, {&seen, 2}, {&seen, 3}, {&seen, 4}, {&seen, 5}};
    PIO_WORKITEM items[5];
    const WORK_QUEUE_TYPE types[5] = {DelayedWorkQueue, DelayedWorkQueue, CriticalWorkQueue,
                                      HyperCriticalWorkQueue, CriticalWorkQueue};
    for (int i = 0; i < 5; ++i) {
        items[i] = IoAllocateWorkItem(device_);
        IoQueueWorkItem(items[i], record, types[i], &jobs[i]);
    }
    EXPECT_EQ(ndksim_kernel_work_items_pending(driver_), 9U);
    gates[0]->let_go();
    ASSERT_TRUE(seen.ran.reaches(5));
    {
        const std::lock_guard lock(seen.mutex);
        EXPECT_EQ(seen.order, (std::vector<int>{4, 3, 5, 1, 2}));
    }
    for (auto& gate : gates) {
        gate->let_go();
    }
    ASSERT_TRUE(eventually([&] { return ndksim_kernel_work_items_pending(driver_) == 0; }));
    for (PIO_WORKITEM item : items) {
        IoFreeWorkItem(item);
    }
}

TEST_F(WorkItem, QueueingAQueuedItemOrFreeingItIsAViolation) {
    Gate gate(device_);
    gate.occupy();
    std::vector<std::unique_ptr<Gate>> others;
    for (int i = 0; i < 3; ++i) {
        others.push_back(std::make_unique<Gate>(device_));
        others.back()->occupy();
    }
    PIO_WORKITEM item = IoAllocateWorkItem(device_);
    Seen seen;
    Job job{&seen, 1};
    IoQueueWorkItem(item, record, DelayedWorkQueue, &job);
    EXPECT_EQ(violations_of([&] { IoQueueWorkItem(item, record, DelayedWorkQueue, &job); }), 1U);
    EXPECT_EQ(violations_of([&] { IoFreeWorkItem(item); }), 1U);
    EXPECT_EQ(ndksim_kernel_pool_live(0x6B576F49), 5U) << "nothing was freed";
    gate.let_go();
    for (auto& other : others) {
        other->let_go();
    }
    ASSERT_TRUE(seen.ran.reaches(1));
    ASSERT_TRUE(eventually([&] { return ndksim_kernel_work_items_pending(driver_) == 0; }));
    EXPECT_EQ(seen.ran.count(), 1) << "queued once";
    IoFreeWorkItem(item);
}

struct SelfFreeing {
    Tally ran;
    static VOID routine(PDEVICE_OBJECT, PVOID context, PIO_WORKITEM item) {
        IoFreeWorkItem(item);
        static_cast<SelfFreeing*>(context)->ran.bump();
    }
    static VOID routine_ex(PVOID, PVOID context, PIO_WORKITEM item) {
        routine(nullptr, context, item);
    }
};

TEST_F(WorkItem, RoutineMayFreeItsOwnItem) {
    SelfFreeing s;
    PIO_WORKITEM item = IoAllocateWorkItem(device_);
    const ULONG64 before = ndksim_kernel_irql_violations();
    IoQueueWorkItemEx(item, &SelfFreeing::routine_ex, DelayedWorkQueue, &s);
    ASSERT_TRUE(s.ran.reaches(1));
    ASSERT_TRUE(eventually([&] { return ndksim_kernel_work_items_pending(driver_) == 0; }));
    EXPECT_EQ(ndksim_kernel_irql_violations(), before);
    EXPECT_EQ(ndksim_kernel_pool_live(0x6B576F49), 0U);
}

VOID returns_raised(PDEVICE_OBJECT, PVOID context) {
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(APC_LEVEL, &old);
    KeEnterCriticalRegion();
    static_cast<Tally*>(context)->bump();
}

TEST_F(WorkItem, RoutineReturningAbovePassiveLevelOrInACriticalRegionIsAViolation) {
    Tally ran;
    PIO_WORKITEM item = IoAllocateWorkItem(device_);
    const ULONG64 before = ndksim_kernel_irql_violations();
    IoQueueWorkItem(item, returns_raised, DelayedWorkQueue, &ran);
    ASSERT_TRUE(ran.reaches(1));
    ASSERT_TRUE(eventually([&] { return ndksim_kernel_work_items_pending(driver_) == 0; }));
    EXPECT_EQ(ndksim_kernel_irql_violations() - before, 2U);
    IoFreeWorkItem(item);
}

TEST_F(WorkItem, QueuedItemDefersTheFreeOfADeletedDevice) {
    Gate gate(device_);
    gate.occupy();
    EXPECT_EQ(device_->ReferenceCount, 1) << "the running item holds the device";
    IoDeleteDevice(device_);
    EXPECT_EQ(ndksim_kernel_devices_live(driver_), 0U);
    EXPECT_EQ(driver_->DeviceObject, nullptr);
    gate.let_go();
    ASSERT_TRUE(eventually([&] { return ndksim_kernel_work_items_pending(driver_) == 0; }));
    // The gate frees its item (pool) in its destructor; the device went with its reference.
}

TEST_F(WorkItem, FreeingAnUninitializedItemIsAViolation) {
    std::vector<unsigned char> storage(IoSizeofWorkItem());
    auto* item = reinterpret_cast<PIO_WORKITEM>(storage.data());
    EXPECT_EQ(violations_of([&] { IoUninitializeWorkItem(item); }), 1U);
    IoInitializeWorkItem(device_, item);
    EXPECT_EQ(violations_of([&] { IoFreeWorkItem(item); }), 1U)
        << "caller storage is uninitialized, not freed";
    IoUninitializeWorkItem(item);
}

TEST_F(WorkItem, FreeingPoolThatHoldsAQueuedItemIsAViolationAndDequeuesIt) {
    std::vector<std::unique_ptr<Gate>> gates;
    for (int i = 0; i < 4; ++i) {
        gates.push_back(std::make_unique<Gate>(device_));
        gates.back()->occupy();
    }
    const ULONG tag = 0x6D657449;  // 'Item'
    auto* item =
        static_cast<PIO_WORKITEM>(ExAllocatePool2(POOL_FLAG_NON_PAGED, IoSizeofWorkItem(), tag));
    IoInitializeWorkItem(device_, item);
    Seen seen;
    Job job{&seen, 1};
    IoQueueWorkItem(item, record, DelayedWorkQueue, &job);
    EXPECT_EQ(device_->ReferenceCount, 5);
    EXPECT_EQ(violations_of([&] { ExFreePoolWithTag(item, tag); }), 1U);
    EXPECT_EQ(device_->ReferenceCount, 4) << "its device reference was dropped";
    EXPECT_EQ(ndksim_kernel_work_items_pending(driver_), 4U);
    for (auto& gate : gates) {
        gate->let_go();
    }
    ASSERT_TRUE(eventually([&] { return ndksim_kernel_work_items_pending(driver_) == 0; }));
    EXPECT_EQ(seen.ran.count(), 0);
}

}  // namespace
}  // namespace ndksim::kernel::test
