// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <thread>

#include "kernel_test.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {
namespace {

using SpinLock = KernelTest;

TEST_F(SpinLock, AcquireRaisesToDispatchAndReleaseRestores) {
    KSPIN_LOCK lock;
    KeInitializeSpinLock(&lock);
    EXPECT_EQ(lock, 0U);
    KIRQL old = HIGH_LEVEL;
    KeAcquireSpinLock(&lock, &old);
    EXPECT_EQ(old, PASSIVE_LEVEL);
    EXPECT_EQ(KeGetCurrentIrql(), DISPATCH_LEVEL);
    EXPECT_NE(lock, 0U);
    KeReleaseSpinLock(&lock, old);
    EXPECT_EQ(KeGetCurrentIrql(), PASSIVE_LEVEL);
    EXPECT_EQ(lock, 0U);
}

TEST_F(SpinLock, AtDpcLevelVariantsKeepTheIrql) {
    KSPIN_LOCK lock;
    KeInitializeSpinLock(&lock);
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    const ULONG64 fired = violations_of([&] {
        KeAcquireSpinLockAtDpcLevel(&lock);
        EXPECT_EQ(KeGetCurrentIrql(), DISPATCH_LEVEL);
        KeReleaseSpinLockFromDpcLevel(&lock);
    });
    EXPECT_EQ(fired, 0U);
    EXPECT_EQ(KeGetCurrentIrql(), DISPATCH_LEVEL);
    KeLowerIrql(old);
}

TEST_F(SpinLock, InStackQueuedLockSavesTheIrqlInTheHandle) {
    KSPIN_LOCK lock;
    KeInitializeSpinLock(&lock);
    KLOCK_QUEUE_HANDLE handle;
    KeAcquireInStackQueuedSpinLock(&lock, &handle);
    EXPECT_EQ(handle.OldIrql, PASSIVE_LEVEL);
    EXPECT_EQ(handle.LockQueue.Lock, &lock);
    EXPECT_EQ(KeGetCurrentIrql(), DISPATCH_LEVEL);
    KeReleaseInStackQueuedSpinLock(&handle);
    EXPECT_EQ(KeGetCurrentIrql(), PASSIVE_LEVEL);
    EXPECT_EQ(lock, 0U);
}

TEST_F(SpinLock, ExcludesASecondThread) {
    KSPIN_LOCK lock;
    KeInitializeSpinLock(&lock);
    // Non-atomic read-modify-write under the lock: any overlap loses increments (and TSan
    // reports the race).
    long counter = 0;
    constexpr int k_rounds = 20'000;
    auto work = [&](bool queued) {
        for (int i = 0; i < k_rounds; ++i) {
            if (queued) {
                KLOCK_QUEUE_HANDLE handle;
                KeAcquireInStackQueuedSpinLock(&lock, &handle);
                counter = counter + 1;
                KeReleaseInStackQueuedSpinLock(&handle);
            } else {
                KIRQL old = PASSIVE_LEVEL;
                KeAcquireSpinLock(&lock, &old);
                counter = counter + 1;
                KeReleaseSpinLock(&lock, old);
            }
        }
    };
    std::thread other(work, true);
    work(false);
    other.join();
    EXPECT_EQ(counter, 2L * k_rounds);
}

TEST_F(SpinLock, ReleasingALockNotHeldIsAViolation) {
    KSPIN_LOCK lock;
    KeInitializeSpinLock(&lock);
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    EXPECT_EQ(violations_of([&] { KeReleaseSpinLock(&lock, old); }), 1U);
    EXPECT_EQ(KeGetCurrentIrql(), PASSIVE_LEVEL);
}

TEST_F(SpinLock, ReleasingALockAnotherThreadHoldsIsAViolation) {
    KSPIN_LOCK lock;
    KeInitializeSpinLock(&lock);
    KIRQL old = PASSIVE_LEVEL;
    KeAcquireSpinLock(&lock, &old);
    ULONG64 fired = 0;
    std::thread([&] {
        KIRQL raised = PASSIVE_LEVEL;
        KeRaiseIrql(DISPATCH_LEVEL, &raised);
        fired = violations_of([&] { KeReleaseSpinLockFromDpcLevel(&lock); });
        KeLowerIrql(raised);
    }).join();
    EXPECT_EQ(fired, 1U);
    KeReleaseSpinLock(&lock, old);
}

TEST_F(SpinLock, AcquireAtDpcLevelFromPassiveIsAViolation) {
    KSPIN_LOCK lock;
    KeInitializeSpinLock(&lock);
    EXPECT_EQ(violations_of([&] { KeAcquireSpinLockAtDpcLevel(&lock); }), 1U);
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    KeReleaseSpinLockFromDpcLevel(&lock);
    KeLowerIrql(old);
}

TEST_F(SpinLock, RecursiveAcquireIsAViolationNotAHang) {
    KSPIN_LOCK lock;
    KeInitializeSpinLock(&lock);
    KIRQL old = PASSIVE_LEVEL;
    KeAcquireSpinLock(&lock, &old);
    EXPECT_EQ(violations_of([&] { KeAcquireSpinLockAtDpcLevel(&lock); }), 1U);
    KeReleaseSpinLock(&lock, old);
}

TEST_F(SpinLock, AcquireAboveDispatchLevelIsAViolation) {
    KSPIN_LOCK lock;
    KeInitializeSpinLock(&lock);
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(HIGH_LEVEL, &old);
    KIRQL ignored = PASSIVE_LEVEL;
    EXPECT_EQ(violations_of([&] { KeAcquireSpinLock(&lock, &ignored); }), 1U);
    KeReleaseSpinLockFromDpcLevel(&lock);
    KeLowerIrql(old);
}

}  // namespace
}  // namespace ndksim::kernel::test
