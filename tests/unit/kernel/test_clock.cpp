// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <chrono>

#include "kernel_test.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {
namespace {

using Clock = KernelTest;
using steady = std::chrono::steady_clock;

TEST_F(Clock, PerformanceCounterRunsAtTenMegahertz) {
    LARGE_INTEGER frequency;
    const LARGE_INTEGER first = KeQueryPerformanceCounter(&frequency);
    EXPECT_EQ(frequency.QuadPart, 10'000'000);
    const LARGE_INTEGER second = KeQueryPerformanceCounter(nullptr);
    EXPECT_GE(second.QuadPart, first.QuadPart);
}

TEST_F(Clock, InterruptTimeIsMonotonicAndInHundredNanoseconds) {
    const ULONGLONG before = KeQueryInterruptTime();
    const auto start = steady::now();
    while (steady::now() - start < std::chrono::milliseconds(5)) {
    }
    const ULONGLONG after = KeQueryInterruptTime();
    EXPECT_GE(after - before, 50'000U) << "5 ms is 50000 units of 100 ns";
}

TEST_F(Clock, TickCountIsInterruptTimeOverTheTimeIncrement) {
    EXPECT_EQ(KeQueryTimeIncrement(), 156'250U);
    LARGE_INTEGER ticks;
    const ULONGLONG before = KeQueryInterruptTime() / KeQueryTimeIncrement();
    KeQueryTickCount(&ticks);
    const ULONGLONG after = KeQueryInterruptTime() / KeQueryTimeIncrement();
    EXPECT_GE(static_cast<ULONGLONG>(ticks.QuadPart), before);
    EXPECT_LE(static_cast<ULONGLONG>(ticks.QuadPart), after);
}

TEST_F(Clock, PreciseSystemTimeAgreesWithSystemTime) {
    LARGE_INTEGER coarse;
    LARGE_INTEGER precise;
    KeQuerySystemTime(&coarse);
    KeQuerySystemTimePrecise(&precise);
    EXPECT_GE(precise.QuadPart, coarse.QuadPart);
    EXPECT_LT(precise.QuadPart - coarse.QuadPart, 10'000'000) << "within a second";
}

TEST_F(Clock, RelativeDelaySleepsAtLeastTheInterval) {
    LARGE_INTEGER interval;
    interval.QuadPart = -20 * 10'000;  // 20 ms, relative
    const auto start = steady::now();
    EXPECT_EQ(KeDelayExecutionThread(KernelMode, FALSE, &interval), STATUS_SUCCESS);
    EXPECT_GE(steady::now() - start, std::chrono::milliseconds(20));
}

TEST_F(Clock, AbsoluteDelaySleepsUntilTheSystemTime) {
    const auto start = steady::now();
    LARGE_INTEGER at;
    KeQuerySystemTime(&at);
    at.QuadPart += 20 * 10'000;
    EXPECT_EQ(KeDelayExecutionThread(KernelMode, FALSE, &at), STATUS_SUCCESS);
    // 1 ms of slack: the system clock was read after the start.
    EXPECT_GE(steady::now() - start, std::chrono::milliseconds(19));
}

TEST_F(Clock, DelayIsAllowedAtApcLevelButNotAtDispatchLevel) {
    LARGE_INTEGER interval;
    interval.QuadPart = -1;
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(APC_LEVEL, &old);
    EXPECT_EQ(violations_of([&] { KeDelayExecutionThread(KernelMode, FALSE, &interval); }), 0U);
    KeLowerIrql(old);
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    NTSTATUS status = STATUS_UNSUCCESSFUL;
    EXPECT_EQ(violations_of([&] { status = KeDelayExecutionThread(KernelMode, FALSE, &interval); }),
              1U);
    EXPECT_EQ(status, STATUS_SUCCESS);
    KeLowerIrql(old);
}

TEST_F(Clock, StallBusyWaitsAtAnyIrql) {
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(HIGH_LEVEL, &old);
    const auto start = steady::now();
    EXPECT_EQ(violations_of([] { KeStallExecutionProcessor(50); }), 0U);
    EXPECT_GE(steady::now() - start, std::chrono::microseconds(50));
    KeLowerIrql(old);
}

}  // namespace
}  // namespace ndksim::kernel::test
