// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <chrono>

#include "kernel_test.hpp"
#include "ndksim.h"
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

// Synchronized time (docs/timing.md): while the process has a synchronized adapter, the kernel's
// clock is the simulated clock. A delay queues its deadline, so simulated time reaches it while
// the thread waits, and the interrupt time moves exactly as ndksim_adapter_now does.
TEST_F(Clock, InSynchronizedTimeTheClockIsTheSimulatedClock) {
    ndksim_adapter_config c;
    ndksim_adapter_config_init(&c);
    c.name = "clock";
    c.address = "10.9.0.1";
    c.time_mode = NDKSIM_TIME_SYNCHRONIZED;
    ndksim_adapter* nic = nullptr;
    ASSERT_EQ(ndksim_adapter_create(&c, &nic), STATUS_SUCCESS);
    ASSERT_EQ(ndksim_adapter_wait(nic, 1000), STATUS_SUCCESS);  // set-up done, the clock free
    const ULONG64 sim_before = ndksim_adapter_now(nic);
    const ULONGLONG before = KeQueryInterruptTime();
    LARGE_INTEGER system_before;
    KeQuerySystemTime(&system_before);
    LARGE_INTEGER interval = relative_ms(250);
    EXPECT_EQ(KeDelayExecutionThread(KernelMode, FALSE, &interval), STATUS_SUCCESS);
    const ULONG64 sim_after = ndksim_adapter_now(nic);
    const ULONGLONG after = KeQueryInterruptTime();
    LARGE_INTEGER system_after;
    KeQuerySystemTime(&system_after);
    EXPECT_GE(after - before, 2'500'000U) << "250 ms is 2.5 million units of 100 ns";
    EXPECT_GE(sim_after - sim_before, 250'000'000'000U) << "250 ms of simulated time [ps]";
    EXPECT_EQ(after - before, (sim_after - sim_before) / 100'000) << "one clock";
    EXPECT_EQ(system_after.QuadPart - system_before.QuadPart,
              static_cast<LONGLONG>(after - before));
    // A timed wait that nothing ends ends at its simulated deadline.
    KEVENT never;
    KeInitializeEvent(&never, NotificationEvent, FALSE);
    LARGE_INTEGER timeout = relative_ms(40);
    const ULONGLONG wait_start = KeQueryInterruptTime();
    EXPECT_EQ(KeWaitForSingleObject(&never, Executive, KernelMode, FALSE, &timeout),
              STATUS_TIMEOUT);
    EXPECT_GE(KeQueryInterruptTime() - wait_start, 400'000U);
    ndksim_adapter_destroy(nic);
    // Back on the host's clock, the interrupt time goes on from where it was.
    EXPECT_GE(KeQueryInterruptTime(), after);
}

}  // namespace
}  // namespace ndksim::kernel::test
