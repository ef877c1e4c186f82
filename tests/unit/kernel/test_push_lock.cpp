// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "kernel_test.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {
namespace {

using PushLock = KernelTest;

TEST_F(PushLock, SharedOwnersCoexistAndExclusiveWaitsForThem) {
    EX_PUSH_LOCK lock;
    ExInitializePushLock(&lock);
    EXPECT_EQ(lock, 0U);
    KeEnterCriticalRegion();
    ExAcquirePushLockShared(&lock);
    Tally got_shared;
    Tally got_exclusive;
    std::thread reader([&] {
        KeEnterCriticalRegion();
        ExAcquirePushLockShared(&lock);
        got_shared.bump();
        ExReleasePushLockShared(&lock);
        KeLeaveCriticalRegion();
    });
    EXPECT_TRUE(got_shared.reaches(1)) << "a second reader is not held back";
    reader.join();
    std::thread writer([&] {
        KeEnterCriticalRegion();
        ExAcquirePushLockExclusive(&lock);
        got_exclusive.bump();
        ExReleasePushLockExclusive(&lock);
        KeLeaveCriticalRegion();
    });
    // The writer cannot get in while this thread reads; it gets in once the read ends.
    EXPECT_EQ(got_exclusive.count(), 0);
    ExReleasePushLockShared(&lock);
    KeLeaveCriticalRegion();
    EXPECT_TRUE(got_exclusive.reaches(1));
    writer.join();
    EXPECT_EQ(lock, 0U);
}

TEST_F(PushLock, ExclusiveOwnersExcludeEachOther) {
    EX_PUSH_LOCK lock;
    ExInitializePushLock(&lock);
    long counter = 0;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            KeEnterCriticalRegion();
            for (int i = 0; i < 1000; ++i) {
                ExAcquirePushLockExclusive(&lock);
                ++counter;  // TSan checks that the lock orders these
                ExReleasePushLockExclusive(&lock);
            }
            KeLeaveCriticalRegion();
        });
    }
    for (std::thread& t : threads) {
        t.join();
    }
    EXPECT_EQ(counter, 4000);
}

TEST_F(PushLock, AcquiringOutsideACriticalRegionAtPassiveLevelIsAViolation) {
    EX_PUSH_LOCK lock;
    ExInitializePushLock(&lock);
    EXPECT_EQ(violations_of([&] { ExAcquirePushLockExclusive(&lock); }), 1U);
    ExReleasePushLockExclusive(&lock);
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(APC_LEVEL, &old);
    EXPECT_EQ(violations_of([&] {
                  ExAcquirePushLockShared(&lock);
                  ExReleasePushLockShared(&lock);
              }),
              0U)
        << "APC_LEVEL disables normal kernel APCs too";
    KeLowerIrql(old);
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    EXPECT_EQ(violations_of([&] { ExAcquirePushLockShared(&lock); }), 1U);
    KeLowerIrql(old);
    ExReleasePushLockShared(&lock);
}

TEST_F(PushLock, RecursiveExclusiveAcquireIsAViolation) {
    EX_PUSH_LOCK lock;
    ExInitializePushLock(&lock);
    KeEnterCriticalRegion();
    ExAcquirePushLockExclusive(&lock);
    EXPECT_EQ(violations_of([&] { ExAcquirePushLockExclusive(&lock); }), 1U);
    EXPECT_EQ(violations_of([&] { ExAcquirePushLockShared(&lock); }), 1U);
    ExReleasePushLockExclusive(&lock);
    KeLeaveCriticalRegion();
}

TEST_F(PushLock, ReleasingALockNotHeldIsAViolation) {
    EX_PUSH_LOCK lock;
    ExInitializePushLock(&lock);
    EXPECT_EQ(violations_of([&] { ExReleasePushLockExclusive(&lock); }), 1U);
    EXPECT_EQ(violations_of([&] { ExReleasePushLockShared(&lock); }), 1U);
    EXPECT_EQ(lock, 0U);
}

TEST_F(PushLock, CriticalRegionsNestAndMustBalance) {
    EXPECT_FALSE(KeAreApcsDisabled());
    KeEnterCriticalRegion();
    KeEnterCriticalRegion();
    EXPECT_TRUE(KeAreApcsDisabled());
    KeLeaveCriticalRegion();
    EXPECT_TRUE(KeAreApcsDisabled());
    KeLeaveCriticalRegion();
    EXPECT_FALSE(KeAreApcsDisabled());
    EXPECT_EQ(violations_of([] { KeLeaveCriticalRegion(); }), 1U);
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(APC_LEVEL, &old);
    EXPECT_TRUE(KeAreApcsDisabled());
    KeLowerIrql(old);
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    EXPECT_EQ(violations_of([] { KeEnterCriticalRegion(); }), 1U);
    KeLowerIrql(old);
    KeLeaveCriticalRegion();
}

}  // namespace
}  // namespace ndksim::kernel::test
