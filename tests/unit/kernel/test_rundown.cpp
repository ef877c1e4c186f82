// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <thread>

#include "kernel_test.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {
namespace {

using Rundown = KernelTest;

TEST_F(Rundown, AcquireAndReleaseCountInStepsOfTwo) {
    EX_RUNDOWN_REF ref;
    ExInitializeRundownProtection(&ref);
    EXPECT_EQ(ref.Count, 0U);
    EXPECT_TRUE(ExAcquireRundownProtection(&ref));
    EXPECT_TRUE(ExAcquireRundownProtectionEx(&ref, 3));
    EXPECT_EQ(ref.Count, 4U * EX_RUNDOWN_COUNT_INC);
    ExReleaseRundownProtectionEx(&ref, 3);
    ExReleaseRundownProtection(&ref);
    EXPECT_EQ(ref.Count, 0U);
}

TEST_F(Rundown, WaitWithNoAcquisitionsReturnsAtOnceAndBlocksLaterAcquires) {
    EX_RUNDOWN_REF ref;
    ExInitializeRundownProtection(&ref);
    ExWaitForRundownProtectionRelease(&ref);
    EXPECT_FALSE(ExAcquireRundownProtection(&ref));
    EXPECT_FALSE(ExAcquireRundownProtectionEx(&ref, 2));
    ExRundownCompleted(&ref);
    EXPECT_FALSE(ExAcquireRundownProtection(&ref)) << "still run down";
    ExReInitializeRundownProtection(&ref);
    EXPECT_TRUE(ExAcquireRundownProtection(&ref));
    ExReleaseRundownProtection(&ref);
}

TEST_F(Rundown, WaitReturnsOnlyAfterTheLastRelease) {
    EX_RUNDOWN_REF ref;
    ExInitializeRundownProtection(&ref);
    ASSERT_TRUE(ExAcquireRundownProtectionEx(&ref, 2));
    Tally waited;
    std::thread waiter([&] {
        ExWaitForRundownProtectionRelease(&ref);
        waited.bump();
    });
    // Rundown has begun once the active bit is set: new acquisitions fail from then on.
    ASSERT_TRUE(eventually(
        [&] { return (__atomic_load_n(&ref.Count, __ATOMIC_ACQUIRE) & EX_RUNDOWN_ACTIVE) != 0; }));
    EXPECT_FALSE(ExAcquireRundownProtection(&ref));
    ExReleaseRundownProtection(&ref);
    EXPECT_EQ(waited.count(), 0) << "one acquisition is still held";
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    EXPECT_EQ(violations_of([&] { ExReleaseRundownProtection(&ref); }), 0U)
        << "releases are allowed at DISPATCH_LEVEL";
    KeLowerIrql(old);
    EXPECT_TRUE(waited.reaches(1));
    waiter.join();
    ExRundownCompleted(&ref);
}

TEST_F(Rundown, ReleasingMoreThanWasAcquiredIsAViolation) {
    EX_RUNDOWN_REF ref;
    ExInitializeRundownProtection(&ref);
    ExAcquireRundownProtection(&ref);
    EXPECT_EQ(violations_of([&] { ExReleaseRundownProtectionEx(&ref, 2); }), 1U);
    EXPECT_EQ(ref.Count, static_cast<ULONG_PTR>(EX_RUNDOWN_COUNT_INC)) << "nothing changed";
    ExReleaseRundownProtection(&ref);
}

TEST_F(Rundown, WaitAtDispatchLevelIsAViolation) {
    EX_RUNDOWN_REF ref;
    ExInitializeRundownProtection(&ref);
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    EXPECT_EQ(violations_of([&] { ExWaitForRundownProtectionRelease(&ref); }), 1U);
    KeLowerIrql(old);
}

TEST_F(Rundown, AcquireAboveDispatchLevelIsAViolation) {
    EX_RUNDOWN_REF ref;
    ExInitializeRundownProtection(&ref);
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(HIGH_LEVEL, &old);
    EXPECT_EQ(violations_of([&] { ExAcquireRundownProtection(&ref); }), 1U);
    KeLowerIrql(old);
    ExReleaseRundownProtection(&ref);
}

TEST_F(Rundown, CompletingOrReinitializingBeforeTheRundownIsAViolation) {
    EX_RUNDOWN_REF ref;
    ExInitializeRundownProtection(&ref);
    ExAcquireRundownProtection(&ref);
    EXPECT_EQ(violations_of([&] { ExRundownCompleted(&ref); }), 1U);
    ExInitializeRundownProtection(&ref);
    ExAcquireRundownProtection(&ref);
    EXPECT_EQ(violations_of([&] { ExReInitializeRundownProtection(&ref); }), 1U);
}

}  // namespace
}  // namespace ndksim::kernel::test
