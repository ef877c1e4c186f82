// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <thread>

#include "kernel_test.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {
namespace {

using Irql = KernelTest;

TEST_F(Irql, EveryThreadStartsAtPassiveLevel) {
    KIRQL old = HIGH_LEVEL;
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    KIRQL other = HIGH_LEVEL;
    std::thread([&] { other = KeGetCurrentIrql(); }).join();
    EXPECT_EQ(other, PASSIVE_LEVEL);
    EXPECT_EQ(KeGetCurrentIrql(), DISPATCH_LEVEL);
    KeLowerIrql(old);
}

TEST_F(Irql, RaiseReturnsThePreviousLevelAndLowerRestoresIt) {
    KIRQL old = HIGH_LEVEL;
    const ULONG64 fired = violations_of([&] {
        KeRaiseIrql(APC_LEVEL, &old);
        EXPECT_EQ(old, PASSIVE_LEVEL);
        KIRQL old2 = HIGH_LEVEL;
        KeRaiseIrql(DISPATCH_LEVEL, &old2);
        EXPECT_EQ(old2, APC_LEVEL);
        EXPECT_EQ(KeGetCurrentIrql(), DISPATCH_LEVEL);
        KeLowerIrql(old2);
        EXPECT_EQ(KeGetCurrentIrql(), APC_LEVEL);
        KeLowerIrql(old);
    });
    EXPECT_EQ(KeGetCurrentIrql(), PASSIVE_LEVEL);
    EXPECT_EQ(fired, 0U);
}

TEST_F(Irql, RaisingToTheSameLevelIsAllowed) {
    KIRQL old = HIGH_LEVEL;
    EXPECT_EQ(violations_of([&] { KeRaiseIrql(PASSIVE_LEVEL, &old); }), 0U);
    EXPECT_EQ(old, PASSIVE_LEVEL);
}

TEST_F(Irql, RaiseToDpcLevelReturnsThePreviousLevel) {
    EXPECT_EQ(KeRaiseIrqlToDpcLevel(), PASSIVE_LEVEL);
    EXPECT_EQ(KeGetCurrentIrql(), DISPATCH_LEVEL);
    KeLowerIrql(PASSIVE_LEVEL);
}

TEST_F(Irql, LoweringToAHigherLevelIsAViolation) {
    EXPECT_EQ(violations_of([] { KeLowerIrql(DISPATCH_LEVEL); }), 1U);
}

TEST_F(Irql, RaisingToALowerLevelIsAViolation) {
    KIRQL old = HIGH_LEVEL;
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    KIRQL ignored = HIGH_LEVEL;
    EXPECT_EQ(violations_of([&] { KeRaiseIrql(APC_LEVEL, &ignored); }), 1U);
    EXPECT_EQ(ignored, DISPATCH_LEVEL);
}

TEST(IrqlDeathTest, AViolationAbortsWithTheReportByDefault) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        {
            ::unsetenv("NDKSIM_IRQL_VIOLATIONS");
            KIRQL old = PASSIVE_LEVEL;
            KeRaiseIrql(DISPATCH_LEVEL, &old);
            KeLowerIrql(HIGH_LEVEL);
        },
        "KeLowerIrql at DISPATCH_LEVEL: the new IRQL must not be above the current IRQL");
}

}  // namespace
}  // namespace ndksim::kernel::test
