// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "kernel/dispatcher.hpp"
#include "kernel_test.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {
namespace {

using Event = KernelTest;

LARGE_INTEGER zero_timeout() {
    LARGE_INTEGER t;
    t.QuadPart = 0;
    return t;
}

NTSTATUS wait(KEVENT& e, LARGE_INTEGER* timeout) {
    return KeWaitForSingleObject(&e, Executive, KernelMode, FALSE, timeout);
}

// Starts n threads that wait on e forever and bump `woken` when released, and returns once all
// of them are blocked in the wait.
std::vector<std::thread> park_waiters(KEVENT& e, int n, Tally& woken, NTSTATUS& last_status) {
    const std::size_t before = blocked_waiters();
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i) {
        threads.emplace_back([&] {
            const NTSTATUS s = wait(e, nullptr);
            if (s != STATUS_SUCCESS) {
                last_status = s;
            }
            woken.bump();
        });
    }
    EXPECT_TRUE(eventually([&] { return blocked_waiters() >= before + n; }))
        << "waiters never blocked";
    return threads;
}

TEST_F(Event, InitializeSetsTheStateAndTheWindowsSize) {
    KEVENT e;
    KeInitializeEvent(&e, NotificationEvent, TRUE);
    EXPECT_EQ(KeReadStateEvent(&e), 1);
    EXPECT_EQ(e.Header.Type, NotificationEvent);
    EXPECT_EQ(e.Header.Size, sizeof(KEVENT) / sizeof(LONG));
    KeInitializeEvent(&e, SynchronizationEvent, FALSE);
    EXPECT_EQ(KeReadStateEvent(&e), 0);
}

TEST_F(Event, SetAndResetReturnThePreviousState) {
    KEVENT e;
    KeInitializeEvent(&e, NotificationEvent, FALSE);
    EXPECT_EQ(KeSetEvent(&e, 0, FALSE), 0);
    EXPECT_EQ(KeSetEvent(&e, 0, FALSE), 1);
    EXPECT_EQ(KeResetEvent(&e), 1);
    EXPECT_EQ(KeResetEvent(&e), 0);
    KeSetEvent(&e, 0, FALSE);
    KeClearEvent(&e);
    EXPECT_EQ(KeReadStateEvent(&e), 0);
}

TEST_F(Event, ZeroTimeoutPollsWithoutWaiting) {
    KEVENT e;
    KeInitializeEvent(&e, NotificationEvent, FALSE);
    LARGE_INTEGER zero = zero_timeout();
    EXPECT_EQ(wait(e, &zero), STATUS_TIMEOUT);
    KeSetEvent(&e, 0, FALSE);
    EXPECT_EQ(wait(e, &zero), STATUS_SUCCESS);
    EXPECT_EQ(KeReadStateEvent(&e), 1) << "a notification event stays signaled";
}

TEST_F(Event, SatisfiedWaitResetsASynchronizationEvent) {
    KEVENT e;
    KeInitializeEvent(&e, SynchronizationEvent, TRUE);
    LARGE_INTEGER zero = zero_timeout();
    EXPECT_EQ(wait(e, &zero), STATUS_SUCCESS);
    EXPECT_EQ(KeReadStateEvent(&e), 0);
    EXPECT_EQ(wait(e, &zero), STATUS_TIMEOUT);
}

// Waits on a fresh, unsignaled event with the timeout `make_timeout()` returns, which is taken
// after the clock starts, and returns how long the wait lasted.
template <typename MakeTimeout>
std::chrono::steady_clock::duration time_out(MakeTimeout make_timeout) {
    KEVENT e;
    KeInitializeEvent(&e, NotificationEvent, FALSE);
    const auto start = std::chrono::steady_clock::now();
    LARGE_INTEGER timeout = make_timeout();
    EXPECT_EQ(wait(e, &timeout), STATUS_TIMEOUT);
    return std::chrono::steady_clock::now() - start;
}

TEST_F(Event, RelativeTimeoutExpiresNoSoonerThanAsked) {
    EXPECT_GE(time_out([] { return relative_ms(30); }), std::chrono::milliseconds(30));
}

TEST_F(Event, AbsoluteTimeoutExpiresNoSoonerThanAsked) {
    const auto elapsed = time_out([] {
        LARGE_INTEGER at;
        KeQuerySystemTime(&at);
        at.QuadPart += 30 * 10'000;  // 30 ms from now, absolute
        return at;
    });
    // 1 ms of slack for the two clocks' rounding; the system clock is read after the start.
    EXPECT_GE(elapsed, std::chrono::milliseconds(29));
}

TEST_F(Event, AbsoluteTimeoutInThePastActsAsAPoll) {
    KEVENT e;
    KeInitializeEvent(&e, NotificationEvent, TRUE);
    LARGE_INTEGER past;
    past.QuadPart = 1;
    EXPECT_EQ(wait(e, &past), STATUS_SUCCESS);
    KeClearEvent(&e);
    EXPECT_EQ(wait(e, &past), STATUS_TIMEOUT);
}

TEST_F(Event, SystemTimeIsCountedFrom1601) {
    LARGE_INTEGER now;
    KeQuerySystemTime(&now);
    // 2020-01-01 is 132223104000000000 in 100 ns units since 1601-01-01.
    EXPECT_GT(now.QuadPart, 132'223'104'000'000'000LL);
}

TEST_F(Event, NotificationEventReleasesEveryWaiterAndStaysSet) {
    KEVENT e;
    KeInitializeEvent(&e, NotificationEvent, FALSE);
    Tally woken;
    NTSTATUS status = STATUS_SUCCESS;
    std::vector<std::thread> threads = park_waiters(e, 3, woken, status);
    EXPECT_EQ(woken.count(), 0);
    KeSetEvent(&e, 0, FALSE);
    EXPECT_TRUE(woken.reaches(3));
    for (std::thread& t : threads) {
        t.join();
    }
    EXPECT_EQ(status, STATUS_SUCCESS);
    EXPECT_EQ(KeReadStateEvent(&e), 1);
}

TEST_F(Event, SynchronizationEventReleasesOneWaiterPerSet) {
    KEVENT e;
    KeInitializeEvent(&e, SynchronizationEvent, FALSE);
    Tally woken;
    NTSTATUS status = STATUS_SUCCESS;
    const std::size_t before = blocked_waiters();
    std::vector<std::thread> threads = park_waiters(e, 3, woken, status);
    for (int n = 1; n <= 3; ++n) {
        KeSetEvent(&e, 0, FALSE);
        ASSERT_TRUE(woken.reaches(n));
        // The released waiter consumed the signal, and the others are still blocked.
        ASSERT_TRUE(eventually([&] { return blocked_waiters() == before + 3 - n; }));
        EXPECT_EQ(woken.count(), n);
        EXPECT_EQ(KeReadStateEvent(&e), 0);
    }
    for (std::thread& t : threads) {
        t.join();
    }
    EXPECT_EQ(status, STATUS_SUCCESS);
}

// A notification event `a` and a synchronization event `b` with the given initial states.
struct EventPair {
    KEVENT a;
    KEVENT b;
    PVOID objects[2] = {&a, &b};

    EventPair(BOOLEAN a_state, BOOLEAN b_state) {
        KeInitializeEvent(&a, NotificationEvent, a_state);
        KeInitializeEvent(&b, SynchronizationEvent, b_state);
    }
    NTSTATUS wait(WAIT_TYPE type, LARGE_INTEGER* timeout) {
        return KeWaitForMultipleObjects(2, objects, type, Executive, KernelMode, FALSE, timeout,
                                        nullptr);
    }
};

TEST_F(Event, WaitAnyReturnsTheIndexOfTheSignaledEvent) {
    EventPair pair(FALSE, TRUE);
    LARGE_INTEGER zero = zero_timeout();
    EXPECT_EQ(pair.wait(WaitAny, &zero), STATUS_WAIT_0 + 1);
    EXPECT_EQ(KeReadStateEvent(&pair.b), 0);
    EXPECT_EQ(pair.wait(WaitAny, &zero), STATUS_TIMEOUT);
}

TEST_F(Event, WaitAllNeedsEveryEventAndConsumesTheSynchronizationOnes) {
    EventPair pair(TRUE, FALSE);
    KEVENT& a = pair.a;
    KEVENT& b = pair.b;
    LARGE_INTEGER zero = zero_timeout();
    EXPECT_EQ(pair.wait(WaitAll, &zero), STATUS_TIMEOUT);
    EXPECT_EQ(KeReadStateEvent(&a), 1) << "a failed WaitAll consumes nothing";
    std::thread setter([&] { KeSetEvent(&b, 0, FALSE); });
    EXPECT_EQ(pair.wait(WaitAll, nullptr), STATUS_WAIT_0);
    setter.join();
    EXPECT_EQ(KeReadStateEvent(&a), 1);
    EXPECT_EQ(KeReadStateEvent(&b), 0);
}

TEST_F(Event, NonzeroTimeoutAtDispatchLevelIsAViolation) {
    KEVENT e;
    KeInitializeEvent(&e, NotificationEvent, FALSE);
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(DISPATCH_LEVEL, &old);
    LARGE_INTEGER timeout = relative_ms(1);
    NTSTATUS status = STATUS_SUCCESS;
    EXPECT_EQ(violations_of([&] { status = wait(e, &timeout); }), 1U);
    EXPECT_EQ(status, STATUS_TIMEOUT);
    LARGE_INTEGER zero = zero_timeout();
    EXPECT_EQ(violations_of([&] { status = wait(e, &zero); }), 0U)
        << "a zero timeout is allowed at DISPATCH_LEVEL";
    EXPECT_EQ(status, STATUS_TIMEOUT);
    KeLowerIrql(old);
}

TEST_F(Event, WaitingOnAnUninitializedObjectIsAViolation) {
    KEVENT e{};
    LARGE_INTEGER zero = zero_timeout();
    NTSTATUS status = STATUS_SUCCESS;
    EXPECT_EQ(violations_of([&] { status = wait(e, &zero); }), 1U);
    EXPECT_EQ(status, STATUS_INVALID_PARAMETER);
}

TEST_F(Event, ManyObjectsWithoutWaitBlocksIsAViolation) {
    KEVENT events[THREAD_WAIT_OBJECTS + 1];
    PVOID objects[THREAD_WAIT_OBJECTS + 1];
    for (int i = 0; i <= THREAD_WAIT_OBJECTS; ++i) {
        KeInitializeEvent(&events[i], NotificationEvent, TRUE);
        objects[i] = &events[i];
    }
    LARGE_INTEGER zero = zero_timeout();
    EXPECT_EQ(violations_of([&] {
                  KeWaitForMultipleObjects(THREAD_WAIT_OBJECTS + 1, objects, WaitAll, Executive,
                                           KernelMode, FALSE, &zero, nullptr);
              }),
              1U);
    KWAIT_BLOCK blocks[THREAD_WAIT_OBJECTS + 1];
    EXPECT_EQ(KeWaitForMultipleObjects(THREAD_WAIT_OBJECTS + 1, objects, WaitAll, Executive,
                                       KernelMode, FALSE, &zero, blocks),
              STATUS_WAIT_0);
}

}  // namespace
}  // namespace ndksim::kernel::test
