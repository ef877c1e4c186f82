// Rundown protection. The EX_RUNDOWN_REF word holds the acquisition count in steps of
// EX_RUNDOWN_COUNT_INC and EX_RUNDOWN_ACTIVE once rundown has begun, updated with atomic
// compare-exchange as Windows does. Windows parks the waiter on a wait block whose address
// replaces the count; the simulator keeps the count and parks the waiter on one process-wide
// condition variable, which the release that drops the last acquisition notifies.

#include <atomic>
#include <condition_variable>
#include <mutex>

#include "kernel/irql.hpp"
#include "kernel/violation.hpp"
#include "wdm.h"

namespace ndksim::kernel {
namespace {

struct rundown_waiters {
    std::mutex mutex;
    std::condition_variable released;
};

rundown_waiters& the_waiters() {
    static rundown_waiters* const instance = new rundown_waiters;
    return *instance;
}

std::atomic_ref<ULONG_PTR> word(EX_RUNDOWN_REF& ref) {
    return std::atomic_ref<ULONG_PTR>(const_cast<ULONG_PTR&>(ref.Count));
}

bool acquire(const char* function, EX_RUNDOWN_REF& ref, ULONG count) {
    // ExAcquireRundownProtection: "Callers ... must be running at IRQL <= DISPATCH_LEVEL."
    require_irql_at_most(function, DISPATCH_LEVEL, "callers must be at IRQL <= DISPATCH_LEVEL");
    auto w = word(ref);
    ULONG_PTR current = w.load(std::memory_order_relaxed);
    for (;;) {
        if ((current & EX_RUNDOWN_ACTIVE) != 0) {
            return false;
        }
        const ULONG_PTR next = current + static_cast<ULONG_PTR>(count) * EX_RUNDOWN_COUNT_INC;
        if (w.compare_exchange_weak(current, next, std::memory_order_acquire,
                                    std::memory_order_relaxed)) {
            return true;
        }
    }
}

void release(const char* function, EX_RUNDOWN_REF& ref, ULONG count) {
    require_irql_at_most(function, DISPATCH_LEVEL, "callers must be at IRQL <= DISPATCH_LEVEL");
    const ULONG_PTR step = static_cast<ULONG_PTR>(count) * EX_RUNDOWN_COUNT_INC;
    auto w = word(ref);
    ULONG_PTR current = w.load(std::memory_order_relaxed);
    ULONG_PTR next = 0;
    do {
        if ((current >> EX_RUNDOWN_COUNT_SHIFT) < count) {
            report_violation(function, "releasing more acquisitions than are held", current_irql());
            return;
        }
        next = current - step;
    } while (!w.compare_exchange_weak(current, next, std::memory_order_release,
                                      std::memory_order_relaxed));
    if (next == EX_RUNDOWN_ACTIVE) {
        // The last acquisition of a run-down reference: wake the waiter. Taking the mutex
        // orders this after the waiter's check, so the wake-up cannot be lost.
        rundown_waiters& waiters = the_waiters();
        { const std::lock_guard lock(waiters.mutex); }
        waiters.released.notify_all();
    }
}

}  // namespace
}  // namespace ndksim::kernel

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API VOID ExInitializeRundownProtection(PEX_RUNDOWN_REF RunRef) {
    word(*RunRef).store(0, std::memory_order_release);
}

NDKSIM_API BOOLEAN ExAcquireRundownProtection(PEX_RUNDOWN_REF RunRef) {
    return acquire("ExAcquireRundownProtection", *RunRef, 1) ? TRUE : FALSE;
}

NDKSIM_API BOOLEAN ExAcquireRundownProtectionEx(PEX_RUNDOWN_REF RunRef, ULONG Count) {
    return acquire("ExAcquireRundownProtectionEx", *RunRef, Count) ? TRUE : FALSE;
}

NDKSIM_API VOID ExReleaseRundownProtection(PEX_RUNDOWN_REF RunRef) {
    release("ExReleaseRundownProtection", *RunRef, 1);
}

NDKSIM_API VOID ExReleaseRundownProtectionEx(PEX_RUNDOWN_REF RunRef, ULONG Count) {
    release("ExReleaseRundownProtectionEx", *RunRef, Count);
}

NDKSIM_API VOID ExWaitForRundownProtectionRelease(PEX_RUNDOWN_REF RunRef) {
    // ExWaitForRundownProtectionRelease: "Callers ... must be running at IRQL <= APC_LEVEL."
    require_irql_at_most("ExWaitForRundownProtectionRelease", APC_LEVEL,
                         "callers must be at IRQL <= APC_LEVEL");
    auto w = word(*RunRef);
    w.fetch_or(EX_RUNDOWN_ACTIVE, std::memory_order_acq_rel);
    rundown_waiters& waiters = the_waiters();
    std::unique_lock lock(waiters.mutex);
    waiters.released.wait(lock,
                          [&] { return w.load(std::memory_order_acquire) == EX_RUNDOWN_ACTIVE; });
}

NDKSIM_API VOID ExRundownCompleted(PEX_RUNDOWN_REF RunRef) {
    // ExRundownCompleted: "Callers ... must be running at IRQL <= DISPATCH_LEVEL."
    require_irql_at_most("ExRundownCompleted", DISPATCH_LEVEL,
                         "callers must be at IRQL <= DISPATCH_LEVEL");
    auto w = word(*RunRef);
    if (w.load(std::memory_order_acquire) != EX_RUNDOWN_ACTIVE) {
        report_violation("ExRundownCompleted",
                         "rundown has not finished (call ExWaitForRundownProtectionRelease first)",
                         current_irql());
    }
    w.store(EX_RUNDOWN_ACTIVE, std::memory_order_release);
}

NDKSIM_API VOID ExReInitializeRundownProtection(PEX_RUNDOWN_REF RunRef) {
    // ExReInitializeRundownProtection: "Callers ... must be running at IRQL <= DISPATCH_LEVEL."
    require_irql_at_most("ExReInitializeRundownProtection", DISPATCH_LEVEL,
                         "callers must be at IRQL <= DISPATCH_LEVEL");
    auto w = word(*RunRef);
    if (w.load(std::memory_order_acquire) != EX_RUNDOWN_ACTIVE) {
        report_violation("ExReInitializeRundownProtection",
                         "rundown has not completed (acquisitions may still be held)",
                         current_irql());
    }
    w.store(0, std::memory_order_release);
}

}  // extern "C"
