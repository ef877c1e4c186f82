// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "kernel_test.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {
namespace {

using Timer = KernelTest;
using steady = std::chrono::steady_clock;

NTSTATUS wait(PVOID object, LARGE_INTEGER timeout) {
    return KeWaitForSingleObject(object, Executive, KernelMode, FALSE, &timeout);
}

TEST_F(Timer, InitializeFormatsANotSignaledWaitableObject) {
    KTIMER t;
    KeInitializeTimer(&t);
    EXPECT_EQ(t.Header.Type, 8) << "TimerNotificationObject";
    EXPECT_EQ(t.Header.Size, sizeof(KTIMER) / sizeof(LONG));
    EXPECT_FALSE(KeReadStateTimer(&t));
    KeInitializeTimerEx(&t, SynchronizationTimer);
    EXPECT_EQ(t.Header.Type, 9) << "TimerSynchronizationObject";
    EXPECT_EQ(wait(&t, relative_ms(0)), STATUS_TIMEOUT);
}

TEST_F(Timer, ExpiryNoSoonerThanTheDueTimeSignalsTheTimer) {
    KTIMER t;
    KeInitializeTimer(&t);
    const auto start = steady::now();
    EXPECT_FALSE(KeSetTimer(&t, relative_ms(20), nullptr));
    EXPECT_EQ(ndksim_kernel_timers_set(), 1U);
    EXPECT_EQ(wait(&t, patience()), STATUS_SUCCESS);
    EXPECT_GE(steady::now() - start, std::chrono::milliseconds(20));
    EXPECT_TRUE(KeReadStateTimer(&t)) << "a notification timer stays signaled";
    EXPECT_EQ(wait(&t, relative_ms(0)), STATUS_SUCCESS);
    EXPECT_EQ(ndksim_kernel_timers_set(), 0U);
}

TEST_F(Timer, AbsoluteDueTimeInThePastExpiresAtOnce) {
    KTIMER t;
    KeInitializeTimer(&t);
    LARGE_INTEGER past;
    past.QuadPart = 1;
    KeSetTimer(&t, past, nullptr);
    EXPECT_EQ(wait(&t, patience()), STATUS_SUCCESS);
}

TEST_F(Timer, SatisfiedWaitResetsASynchronizationTimer) {
    KTIMER t;
    KeInitializeTimerEx(&t, SynchronizationTimer);
    KeSetTimer(&t, relative_ms(1), nullptr);
    EXPECT_EQ(wait(&t, patience()), STATUS_SUCCESS);
    EXPECT_FALSE(KeReadStateTimer(&t));
    EXPECT_EQ(wait(&t, relative_ms(0)), STATUS_TIMEOUT);
}

TEST_F(Timer, SettingAgainReportsTheTimerWasSetAndResetsIt) {
    KTIMER t;
    KeInitializeTimer(&t);
    KeSetTimer(&t, relative_ms(1), nullptr);
    ASSERT_EQ(wait(&t, patience()), STATUS_SUCCESS);
    EXPECT_FALSE(KeSetTimer(&t, relative_ms(60'000), nullptr)) << "it had expired";
    EXPECT_FALSE(KeReadStateTimer(&t)) << "setting clears the signal";
    EXPECT_TRUE(KeSetTimer(&t, relative_ms(60'000), nullptr)) << "still set";
    EXPECT_TRUE(KeCancelTimer(&t));
    EXPECT_FALSE(KeCancelTimer(&t));
    EXPECT_EQ(wait(&t, relative_ms(5)), STATUS_TIMEOUT) << "a cancelled timer never fires";
}

struct DpcCount {
    KDPC dpc;
    Tally ran;
    KIRQL irql = PASSIVE_LEVEL;
    static VOID routine(PKDPC, PVOID context, PVOID, PVOID) {
        auto* c = static_cast<DpcCount*>(context);
        c->irql = KeGetCurrentIrql();
        c->ran.bump();
    }
    DpcCount() { KeInitializeDpc(&dpc, &DpcCount::routine, this); }
};

TEST_F(Timer, ExpiryQueuesTheTimersDpc) {
    KTIMER t;
    KeInitializeTimer(&t);
    DpcCount c;
    KeSetTimer(&t, relative_ms(1), &c.dpc);
    ASSERT_TRUE(c.ran.reaches(1));
    KeFlushQueuedDpcs();
    EXPECT_EQ(c.irql, DISPATCH_LEVEL);
    EXPECT_TRUE(KeReadStateTimer(&t));
}

TEST_F(Timer, PeriodicTimerFiresUntilCancelled) {
    KTIMER t;
    KeInitializeTimerEx(&t, SynchronizationTimer);
    DpcCount c;
    KeSetTimerEx(&t, relative_ms(1), 2, &c.dpc);
    ASSERT_TRUE(c.ran.reaches(3));
    EXPECT_EQ(ndksim_kernel_timers_set(), 1U) << "re-armed after each expiry";
    EXPECT_TRUE(KeCancelTimer(&t));
    EXPECT_EQ(ndksim_kernel_timers_set(), 0U);
    KeFlushQueuedDpcs();
}

TEST_F(Timer, WaitAnyOnATimerAndAnEvent) {
    KTIMER t;
    KEVENT e;
    KeInitializeTimer(&t);
    KeInitializeEvent(&e, NotificationEvent, FALSE);
    PVOID objects[] = {&e, &t};
    KeSetTimer(&t, relative_ms(1), nullptr);
    LARGE_INTEGER timeout = patience();
    EXPECT_EQ(KeWaitForMultipleObjects(2, objects, WaitAny, Executive, KernelMode, FALSE, &timeout,
                                       nullptr),
              STATUS_WAIT_0 + 1);
}

TEST_F(Timer, SetAndCancelAreAllowedAtDispatchLevel) {
    KTIMER t;
    KeInitializeTimer(&t);
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    EXPECT_EQ(violations_of([&] {
                  KeSetTimer(&t, relative_ms(60'000), nullptr);
                  KeCancelTimer(&t);
              }),
              0U);
    KeLowerIrql(old);
}

TEST_F(Timer, NegativePeriodIsAViolationAndSetsNothing) {
    KTIMER t;
    KeInitializeTimer(&t);
    BOOLEAN result = TRUE;
    EXPECT_EQ(violations_of([&] { result = KeSetTimerEx(&t, relative_ms(1), -1, nullptr); }), 1U);
    EXPECT_FALSE(result);
    EXPECT_FALSE(KeCancelTimer(&t));
}

TEST_F(Timer, SettingAnUninitializedTimerIsAViolation) {
    KTIMER t{};
    EXPECT_EQ(violations_of([&] { KeSetTimer(&t, relative_ms(1), nullptr); }), 1U);
    EXPECT_EQ(ndksim_kernel_timers_set(), 0U);
}

TEST_F(Timer, ReinitializingASetTimerIsAViolationAndCancelsIt) {
    KTIMER t;
    KeInitializeTimer(&t);
    KeSetTimer(&t, relative_ms(60'000), nullptr);
    EXPECT_EQ(violations_of([&] { KeInitializeTimer(&t); }), 1U);
    EXPECT_FALSE(KeCancelTimer(&t));
}

TEST_F(Timer, FreeingPoolThatHoldsASetTimerIsAViolationAndDisarmsIt) {
    const ULONG tag = 0x726D6954;  // 'Timr'
    auto* t = static_cast<PKTIMER>(ExAllocatePool2(POOL_FLAG_NON_PAGED, sizeof(KTIMER), tag));
    KeInitializeTimer(t);
    KeSetTimerEx(t, relative_ms(1), 1, nullptr);
    EXPECT_EQ(violations_of([&] { ExFreePoolWithTag(t, tag); }), 1U);
    EXPECT_EQ(ndksim_kernel_timers_set(), 0U) << "the timer thread no longer sees it";
}

}  // namespace
}  // namespace ndksim::kernel::test
