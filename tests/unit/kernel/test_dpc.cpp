// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <mutex>
#include <thread>
#include <vector>

#include "kernel_test.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {
namespace {

using Dpc = KernelTest;

// What DPC routines saw, recorded under a lock (they run on the DPC thread).
struct Record {
    std::mutex mutex;
    std::vector<int> order;
    std::vector<KIRQL> irqls;
    std::vector<std::thread::id> threads;
    std::vector<std::pair<PVOID, PVOID>> arguments;
    Tally ran;
};

struct Tagged {
    Record* record;
    int tag;
};

VOID record_dpc(PKDPC, PVOID context, PVOID argument1, PVOID argument2) {
    auto* t = static_cast<Tagged*>(context);
    {
        const std::lock_guard lock(t->record->mutex);
        t->record->order.push_back(t->tag);
        t->record->irqls.push_back(KeGetCurrentIrql());
        t->record->threads.push_back(std::this_thread::get_id());
        t->record->arguments.emplace_back(argument1, argument2);
    }
    t->record->ran.bump();
}

// A DPC that holds the DPC thread until its event is set, so tests can queue behind it.
struct Blocker {
    KEVENT release;
    KEVENT entered;
    KDPC dpc;

    static VOID routine(PKDPC, PVOID context, PVOID, PVOID) {
        auto* b = static_cast<Blocker*>(context);
        KeSetEvent(&b->entered, 0, FALSE);
        // A DPC must not wait; this one polls with a zero timeout, which DISPATCH_LEVEL allows.
        LARGE_INTEGER zero;
        zero.QuadPart = 0;
        while (KeWaitForSingleObject(&b->release, Executive, KernelMode, FALSE, &zero) ==
               STATUS_TIMEOUT) {
            std::this_thread::yield();
        }
    }

    Blocker() {
        KeInitializeEvent(&release, NotificationEvent, FALSE);
        KeInitializeEvent(&entered, NotificationEvent, FALSE);
        KeInitializeDpc(&dpc, &Blocker::routine, this);
    }
    void hold() {
        ASSERT_TRUE(KeInsertQueueDpc(&dpc, nullptr, nullptr));
        LARGE_INTEGER timeout = patience();
        ASSERT_EQ(KeWaitForSingleObject(&entered, Executive, KernelMode, FALSE, &timeout),
                  STATUS_SUCCESS);
    }
    void let_go() { KeSetEvent(&release, 0, FALSE); }
};

// A recording DPC, initialized, with the DPC thread held by a blocker so it stays queued.
struct Held {
    Blocker blocker;
    Record record;
    Tagged t{&record, 1};
    KDPC dpc;
    Held() {
        blocker.hold();
        KeInitializeDpc(&dpc, record_dpc, &t);
    }
};

TEST_F(Dpc, InitializeFormatsTheWindowsFields) {
    KDPC dpc;
    Record record;
    Tagged t{&record, 1};
    KeInitializeDpc(&dpc, record_dpc, &t);
    EXPECT_EQ(dpc.Type, 0x13) << "DpcObject";
    EXPECT_EQ(dpc.Importance, MediumImportance);
    EXPECT_EQ(dpc.DeferredRoutine, &record_dpc);
    EXPECT_EQ(dpc.DeferredContext, &t);
    EXPECT_EQ(dpc.DpcData, nullptr);
    KeSetImportanceDpc(&dpc, LowImportance);
    EXPECT_EQ(dpc.Importance, LowImportance);
    KeSetTargetProcessorDpc(&dpc, 3);
    EXPECT_EQ(dpc.Number, 3);
}

TEST_F(Dpc, RoutineRunsAtDispatchLevelOnTheDpcThreadWithItsArguments) {
    Record record;
    Tagged t{&record, 7};
    KDPC dpc;
    KeInitializeDpc(&dpc, record_dpc, &t);
    int a = 0;
    int b = 0;
    EXPECT_TRUE(KeInsertQueueDpc(&dpc, &a, &b));
    ASSERT_TRUE(record.ran.reaches(1));
    const std::lock_guard lock(record.mutex);
    EXPECT_EQ(record.irqls.at(0), DISPATCH_LEVEL);
    EXPECT_NE(record.threads.at(0), std::this_thread::get_id());
    EXPECT_EQ(record.arguments.at(0).first, &a);
    EXPECT_EQ(record.arguments.at(0).second, &b);
}

TEST_F(Dpc, InsertingAQueuedDpcReturnsFalseAndKeepsTheFirstArguments) {
    Held held;
    auto& [blocker, record, t, dpc] = held;
    int first = 0;
    int second = 0;
    EXPECT_TRUE(KeInsertQueueDpc(&dpc, &first, nullptr));
    EXPECT_NE(dpc.DpcData, nullptr);
    EXPECT_FALSE(KeInsertQueueDpc(&dpc, &second, nullptr));
    blocker.let_go();
    KeFlushQueuedDpcs();
    EXPECT_EQ(record.ran.count(), 1);
    EXPECT_EQ(record.arguments.at(0).first, &first);
    EXPECT_EQ(dpc.DpcData, nullptr);
}

TEST_F(Dpc, RemovedDpcDoesNotRun) {
    Held held;
    auto& [blocker, record, t, dpc] = held;
    EXPECT_FALSE(KeRemoveQueueDpc(&dpc)) << "not queued yet";
    EXPECT_TRUE(KeInsertQueueDpc(&dpc, nullptr, nullptr));
    EXPECT_EQ(ndksim_kernel_dpcs_queued(), 2U) << "the blocker runs, this one waits";
    EXPECT_TRUE(KeRemoveQueueDpc(&dpc));
    EXPECT_FALSE(KeRemoveQueueDpc(&dpc));
    blocker.let_go();
    KeFlushQueuedDpcs();
    EXPECT_EQ(record.ran.count(), 0);
    EXPECT_EQ(ndksim_kernel_dpcs_queued(), 0U);
}

TEST_F(Dpc, DpcsRunInFifoOrderWithHighImportanceFirst) {
    Blocker blocker;
    blocker.hold();
    Record record;
    Tagged tags[4] = {{&record, 1}, {&record, 2}, {&record, 3}, {&record, 4}};
    KDPC dpcs[4];
    for (int i = 0; i < 4; ++i) {
        KeInitializeDpc(&dpcs[i], record_dpc, &tags[i]);
    }
    KeSetImportanceDpc(&dpcs[3], HighImportance);
    for (KDPC& dpc : dpcs) {
        EXPECT_TRUE(KeInsertQueueDpc(&dpc, nullptr, nullptr));
    }
    blocker.let_go();
    KeFlushQueuedDpcs();
    const std::lock_guard lock(record.mutex);
    EXPECT_EQ(record.order, (std::vector<int>{4, 1, 2, 3}));
}

TEST_F(Dpc, FlushWaitsForTheDpcsQueuedBeforeIt) {
    Held held;
    auto& [blocker, record, t, dpc] = held;
    KeInsertQueueDpc(&dpc, nullptr, nullptr);
    std::thread releaser([&] {
        // Let the flush start first; it must not return before the DPC has run either way.
        std::this_thread::yield();
        blocker.let_go();
    });
    KeFlushQueuedDpcs();
    EXPECT_EQ(record.ran.count(), 1);
    releaser.join();
}

struct Requeue {
    KDPC dpc;
    int runs = 0;
    Tally done;
    static VOID routine(PKDPC dpc, PVOID context, PVOID, PVOID) {
        auto* r = static_cast<Requeue*>(context);
        if (++r->runs < 3) {
            EXPECT_TRUE(KeInsertQueueDpc(dpc, nullptr, nullptr)) << "dequeued before it runs";
        }
        r->done.bump();
    }
};

TEST_F(Dpc, RoutineMayQueueItsOwnDpcAgain) {
    Requeue r;
    KeInitializeDpc(&r.dpc, &Requeue::routine, &r);
    KeInsertQueueDpc(&r.dpc, nullptr, nullptr);
    ASSERT_TRUE(r.done.reaches(3));
    KeFlushQueuedDpcs();
    EXPECT_EQ(r.runs, 3);
}

TEST_F(Dpc, FlushAbovePassiveLevelIsAViolation) {
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    EXPECT_EQ(violations_of([] { KeFlushQueuedDpcs(); }), 1U);
    KeLowerIrql(old);
}

TEST_F(Dpc, ReinitializingAQueuedDpcIsAViolation) {
    Held held;
    auto& [blocker, record, t, dpc] = held;
    KeInsertQueueDpc(&dpc, nullptr, nullptr);
    EXPECT_EQ(violations_of([&] { KeInitializeDpc(&dpc, record_dpc, &t); }), 1U);
    blocker.let_go();
    KeFlushQueuedDpcs();
    EXPECT_EQ(record.ran.count(), 1) << "still queued after the refused re-initialization";
}

VOID lowers_irql(PKDPC, PVOID context, PVOID, PVOID) {
    KeLowerIrql(PASSIVE_LEVEL);
    static_cast<Tally*>(context)->bump();
}

TEST_F(Dpc, RoutineReturningBelowDispatchLevelIsAViolation) {
    Tally ran;
    KDPC dpc;
    KeInitializeDpc(&dpc, lowers_irql, &ran);
    const ULONG64 before = ndksim_kernel_irql_violations();
    KeInsertQueueDpc(&dpc, nullptr, nullptr);
    KeFlushQueuedDpcs();
    EXPECT_EQ(ndksim_kernel_irql_violations() - before, 1U);
    // The DPC thread is back at DISPATCH_LEVEL for the next DPC.
    Record record;
    Tagged t{&record, 1};
    KeInitializeDpc(&dpc, record_dpc, &t);
    KeInsertQueueDpc(&dpc, nullptr, nullptr);
    KeFlushQueuedDpcs();
    const std::lock_guard lock(record.mutex);
    EXPECT_EQ(record.irqls.at(0), DISPATCH_LEVEL);
}

TEST_F(Dpc, FreeingPoolThatHoldsAQueuedDpcIsAViolationAndDequeuesIt) {
    Blocker blocker;
    blocker.hold();
    Record record;
    Tagged t{&record, 1};
    const ULONG tag = 0x20637044;  // 'Dpc '
    auto* dpc = static_cast<PKDPC>(ExAllocatePool2(POOL_FLAG_NON_PAGED, sizeof(KDPC), tag));
    KeInitializeDpc(dpc, record_dpc, &t);
    KeInsertQueueDpc(dpc, nullptr, nullptr);
    EXPECT_EQ(violations_of([&] { ExFreePoolWithTag(dpc, tag); }), 1U);
    blocker.let_go();
    KeFlushQueuedDpcs();
    EXPECT_EQ(record.ran.count(), 0);
    EXPECT_EQ(ndksim_kernel_dpcs_queued(), 0U);
}

}  // namespace
}  // namespace ndksim::kernel::test
