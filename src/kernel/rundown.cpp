// SPDX-License-Identifier: MIT
// Rundown protection. The EX_RUNDOWN_REF word holds the acquisition count in steps of
// EX_RUNDOWN_COUNT_INC and EX_RUNDOWN_ACTIVE once rundown has begun, updated with atomic
// compare-exchange as Windows does. Windows parks the waiter on a wait block whose address
// replaces the count; the simulator keeps the count and parks the waiter in a process-wide
// parking place, which the release that drops the last acquisition wakes.

#include <atomic>

#include "kernel/irql.hpp"
#include "kernel/parking.hpp"
#include "kernel/violation.hpp"
#include "wdm.h"

namespace ndksim::kernel {
namespace {

parking& rundown_waiters() {
    static parking* const instance = new parking;
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
        if (w.compare_exchange_weak(current, next, std::memory_order_seq_cst,
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
    } while (!w.compare_exchange_weak(current, next, std::memory_order_seq_cst,
                                      std::memory_order_relaxed));
    if (next == EX_RUNDOWN_ACTIVE) {
        // The last acquisition of a run-down reference: wake the waiter.
        rundown_waiters().wake();
    }
}

// ExRundownCompleted and ExReInitializeRundownProtection: "Callers ... must be running at IRQL
// <= DISPATCH_LEVEL", after ExWaitForRundownProtectionRelease returned. Stores `value`.
void after_rundown(const char* function, EX_RUNDOWN_REF& ref, ULONG_PTR value) {
    require_irql_at_most(function, DISPATCH_LEVEL, "callers must be at IRQL <= DISPATCH_LEVEL");
    auto w = word(ref);
    if (w.load(std::memory_order_acquire) != EX_RUNDOWN_ACTIVE) {
        report_violation(function,
                         "rundown has not finished (acquisitions may still be held; call "
                         "ExWaitForRundownProtectionRelease first)",
                         current_irql());
    }
    w.store(value, std::memory_order_release);
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
    w.fetch_or(EX_RUNDOWN_ACTIVE, std::memory_order_seq_cst);
    rundown_waiters().wait([&] { return w.load(std::memory_order_seq_cst) == EX_RUNDOWN_ACTIVE; });
}

NDKSIM_API VOID ExRundownCompleted(PEX_RUNDOWN_REF RunRef) {
    after_rundown("ExRundownCompleted", *RunRef, EX_RUNDOWN_ACTIVE);
}

NDKSIM_API VOID ExReInitializeRundownProtection(PEX_RUNDOWN_REF RunRef) {
    after_rundown("ExReInitializeRundownProtection", *RunRef, 0);
}

}  // extern "C"
