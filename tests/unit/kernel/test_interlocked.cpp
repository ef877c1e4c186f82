// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <thread>

#include "wdm.h"

namespace {

TEST(Interlocked, ThirtyTwoBitOperationsReturnWhatWindowsReturns) {
    volatile LONG v = 5;
    EXPECT_EQ(InterlockedIncrement(&v), 6);
    EXPECT_EQ(InterlockedDecrement(&v), 5);
    EXPECT_EQ(InterlockedAdd(&v, 10), 15);
    EXPECT_EQ(InterlockedExchangeAdd(&v, 5), 15);
    EXPECT_EQ(InterlockedExchange(&v, 0x0F), 20);
    EXPECT_EQ(InterlockedCompareExchange(&v, 99, 1), 0x0F) << "no store when it differs";
    EXPECT_EQ(v, 0x0F);
    EXPECT_EQ(InterlockedCompareExchange(&v, 0x30, 0x0F), 0x0F);
    EXPECT_EQ(v, 0x30);
    EXPECT_EQ(InterlockedOr(&v, 0x03), 0x30);
    EXPECT_EQ(InterlockedAnd(&v, 0x21), 0x33);
    EXPECT_EQ(InterlockedXor(&v, 0x01), 0x21);
    EXPECT_EQ(v, 0x20);
}

TEST(Interlocked, SixtyFourBitOperationsUseTheWholeWidth) {
    volatile LONG64 v = 0x100000000LL;
    EXPECT_EQ(InterlockedIncrement64(&v), 0x100000001LL);
    EXPECT_EQ(InterlockedDecrement64(&v), 0x100000000LL);
    EXPECT_EQ(InterlockedExchangeAdd64(&v, 1), 0x100000000LL);
    EXPECT_EQ(InterlockedAdd64(&v, 1), 0x100000002LL);
    EXPECT_EQ(InterlockedExchange64(&v, -1), 0x100000002LL);
    EXPECT_EQ(InterlockedCompareExchange64(&v, 7, -1), -1);
    EXPECT_EQ(InterlockedOr64(&v, 0x100000000LL), 7);
    EXPECT_EQ(InterlockedAnd64(&v, 0x100000000LL), 0x100000007LL);
    EXPECT_EQ(InterlockedXor64(&v, 0x100000000LL), 0x100000000LL);
    EXPECT_EQ(v, 0);
}

TEST(Interlocked, PointerOperationsSwapPointers) {
    int a = 0;
    int b = 0;
    PVOID volatile p = &a;
    EXPECT_EQ(InterlockedExchangePointer(&p, &b), &a);
    EXPECT_EQ(InterlockedCompareExchangePointer(&p, &a, &a), &b) << "no store when it differs";
    EXPECT_EQ(InterlockedCompareExchangePointer(&p, &a, &b), &b);
    EXPECT_EQ(p, &a);
}

TEST(Interlocked, IncrementsFromTwoThreadsAreNotLost) {
    volatile LONG counter = 0;
    constexpr int k_rounds = 50'000;
    auto work = [&] {
        for (int i = 0; i < k_rounds; ++i) {
            InterlockedIncrement(&counter);
        }
    };
    std::thread other(work);
    work();
    other.join();
    EXPECT_EQ(counter, 2 * k_rounds);
}

TEST(Interlocked, OrderedReadsAndWritesSeeAndStoreTheValue) {
    volatile LONG l = 7;
    volatile LONG64 q = 1LL << 40;
    int a = 0;
    PVOID volatile p = nullptr;
    EXPECT_EQ(ReadAcquire(&l), 7);
    EXPECT_EQ(ReadNoFence(&l), 7);
    WriteRelease(&l, -3);
    EXPECT_EQ(ReadNoFence(&l), -3);
    WriteNoFence(&l, 9);
    EXPECT_EQ(ReadAcquire(&l), 9);
    EXPECT_EQ(ReadAcquire64(&q), 1LL << 40);
    WriteRelease64(&q, -(1LL << 41));
    EXPECT_EQ(ReadNoFence64(&q), -(1LL << 41));
    WritePointerRelease(&p, &a);
    EXPECT_EQ(ReadPointerAcquire(&p), &a);
}

// A release store publishes the data written before it to a thread whose acquire load sees the
// store (ThreadSanitizer checks the pairing in its build).
TEST(Interlocked, AReleaseStorePublishesEarlierWritesToAnAcquireLoad) {
    int payload = 0;
    volatile LONG ready = 0;
    std::thread writer([&] {
        payload = 42;
        WriteRelease(&ready, 1);
    });
    while (ReadAcquire(&ready) == 0) {
        std::this_thread::yield();
    }
    EXPECT_EQ(payload, 42);
    writer.join();
}

}  // namespace
