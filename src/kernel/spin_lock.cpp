// SPDX-License-Identifier: MIT
// Spin locks. The lock word is the consumer's KSPIN_LOCK; the simulator spins on it with an
// atomic compare-exchange and stores a per-thread token there while it is held, so a release
// by a thread that does not hold the lock is caught. Raising the IRQL does not stop Linux from
// preempting the holder, so waiters yield after a short spin instead of burning their slice.
// Each thread counts the spin locks it holds (util/irql), so the NDK surface can tell when a
// consumer callback returns still holding one.

#include <atomic>
#include <thread>

#include "kernel/irql.hpp"
#include "kernel/violation.hpp"
#include "util/irql.hpp"
#include "wdm.h"

namespace ndksim::kernel {
namespace {

thread_local const char t_token = 0;

ULONG_PTR my_token() noexcept {
    return reinterpret_cast<ULONG_PTR>(&t_token);
}

// Returns false (after the report) when the caller already holds the lock.
bool acquire(const char* function, KSPIN_LOCK& word) {
    std::atomic_ref<ULONG_PTR> lock(word);
    if (lock.load(std::memory_order_relaxed) == my_token()) {
        // Windows deadlocks here; a report is more useful than a hang.
        report_violation(function, "the calling thread already holds this spin lock",
                         current_irql());
        return false;
    }
    unsigned spins = 0;
    for (;;) {
        ULONG_PTR expected = 0;
        if (lock.compare_exchange_weak(expected, my_token(), std::memory_order_acquire,
                                       std::memory_order_relaxed)) {
            irql::spin_lock_acquired();
            return true;
        }
        if (++spins % 64 == 0) {
            std::this_thread::yield();
        }
    }
}

void release(const char* function, KSPIN_LOCK& word) {
    std::atomic_ref<ULONG_PTR> lock(word);
    ULONG_PTR expected = my_token();
    if (!lock.compare_exchange_strong(expected, 0, std::memory_order_release,
                                      std::memory_order_relaxed)) {
        report_violation(function, "the calling thread does not hold this spin lock",
                         current_irql());
        return;
    }
    irql::spin_lock_released();
}

}  // namespace
}  // namespace ndksim::kernel

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API VOID KeInitializeSpinLock(PKSPIN_LOCK SpinLock) {
    std::atomic_ref<ULONG_PTR>(*SpinLock).store(0, std::memory_order_release);
}

NDKSIM_API KIRQL KeAcquireSpinLockRaiseToDpc(PKSPIN_LOCK SpinLock) {
    // KeAcquireSpinLock: "Callers of KeAcquireSpinLock must be running at IRQL <= DISPATCH_LEVEL."
    require_irql_at_most("KeAcquireSpinLock", DISPATCH_LEVEL,
                         "callers must be at IRQL <= DISPATCH_LEVEL");
    const KIRQL old = current_irql();
    set_irql(DISPATCH_LEVEL);
    acquire("KeAcquireSpinLock", *SpinLock);
    return old;
}

NDKSIM_API VOID KeReleaseSpinLock(PKSPIN_LOCK SpinLock, KIRQL NewIrql) {
    // KeReleaseSpinLock: "Callers of this routine are running at IRQL = DISPATCH_LEVEL."
    if (current_irql() != DISPATCH_LEVEL) {
        report_violation("KeReleaseSpinLock", "callers must be at DISPATCH_LEVEL", current_irql());
    }
    release("KeReleaseSpinLock", *SpinLock);
    set_irql(NewIrql);
}

NDKSIM_API VOID KeAcquireSpinLockAtDpcLevel(PKSPIN_LOCK SpinLock) {
    // KeAcquireSpinLockAtDpcLevel: "Callers ... must be running at IRQL >= DISPATCH_LEVEL."
    require_irql_at_least("KeAcquireSpinLockAtDpcLevel", DISPATCH_LEVEL,
                          "callers must be at IRQL >= DISPATCH_LEVEL");
    acquire("KeAcquireSpinLockAtDpcLevel", *SpinLock);
}

NDKSIM_API VOID KeReleaseSpinLockFromDpcLevel(PKSPIN_LOCK SpinLock) {
    require_irql_at_least("KeReleaseSpinLockFromDpcLevel", DISPATCH_LEVEL,
                          "callers must be at IRQL >= DISPATCH_LEVEL");
    release("KeReleaseSpinLockFromDpcLevel", *SpinLock);
}

NDKSIM_API VOID KeAcquireInStackQueuedSpinLock(PKSPIN_LOCK SpinLock,
                                               PKLOCK_QUEUE_HANDLE LockHandle) {
    // KeAcquireInStackQueuedSpinLock: "Callers ... must be running at IRQL <= DISPATCH_LEVEL."
    require_irql_at_most("KeAcquireInStackQueuedSpinLock", DISPATCH_LEVEL,
                         "callers must be at IRQL <= DISPATCH_LEVEL");
    LockHandle->LockQueue.Next = nullptr;
    LockHandle->LockQueue.Lock = SpinLock;
    LockHandle->OldIrql = current_irql();
    set_irql(DISPATCH_LEVEL);
    acquire("KeAcquireInStackQueuedSpinLock", *SpinLock);
}

NDKSIM_API VOID KeReleaseInStackQueuedSpinLock(PKLOCK_QUEUE_HANDLE LockHandle) {
    release("KeReleaseInStackQueuedSpinLock", *LockHandle->LockQueue.Lock);
    set_irql(LockHandle->OldIrql);
}

}  // extern "C"
