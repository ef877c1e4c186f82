// SPDX-License-Identifier: MIT
// Push locks. The whole lock state is the consumer's EX_PUSH_LOCK word, changed with atomic
// compare-exchange: 0 is free, an even value is twice the number of shared owners, an odd value
// is the exclusive owner's token with bit 0 set (the token is the address of a per-thread
// 8-byte-aligned object, so bit 0 is free for the mark). Waiters spin briefly, then sleep in a
// process-wide parking place that every release which may let someone in wakes.

#include <atomic>

#include "kernel/critical_region.hpp"
#include "kernel/irql.hpp"
#include "kernel/parking.hpp"
#include "kernel/violation.hpp"
#include "wdm.h"

namespace ndksim::kernel {
namespace {

constexpr ULONG_PTR k_exclusive = 1;
constexpr ULONG_PTR k_shared_step = 2;

alignas(8) thread_local const char t_token = 0;

ULONG_PTR exclusive_mark() noexcept {
    return reinterpret_cast<ULONG_PTR>(&t_token) | k_exclusive;
}

parking& push_lock_waiters() {
    static parking* const instance = new parking;
    return *instance;
}

std::atomic_ref<ULONG_PTR> word(EX_PUSH_LOCK& lock) {
    return std::atomic_ref<ULONG_PTR>(lock);
}

// Spins briefly on `try_take`, then sleeps until a release lets it succeed.
template <typename TryTake>
void take(TryTake try_take) {
    for (int spin = 0; spin < 64; ++spin) {
        if (try_take()) {
            return;
        }
    }
    push_lock_waiters().wait(try_take);
}

}  // namespace
}  // namespace ndksim::kernel

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API VOID ExInitializePushLock(PEX_PUSH_LOCK PushLock) {
    word(*PushLock).store(0, std::memory_order_release);
}

NDKSIM_API VOID ExAcquirePushLockExclusiveEx(PEX_PUSH_LOCK PushLock, ULONG Flags) {
    UNREFERENCED_PARAMETER(Flags);
    require_apcs_disabled("ExAcquirePushLockExclusive");
    auto w = word(*PushLock);
    if (w.load(std::memory_order_relaxed) == exclusive_mark()) {
        // ExAcquirePushLockExclusive: push locks are not recursive; "the thread hangs".
        report_violation("ExAcquirePushLockExclusive",
                         "the calling thread already owns this push lock exclusively",
                         current_irql());
        return;
    }
    take([&] {
        ULONG_PTR expected = 0;
        return w.compare_exchange_strong(expected, exclusive_mark(), std::memory_order_seq_cst,
                                         std::memory_order_relaxed);
    });
}

NDKSIM_API VOID ExAcquirePushLockSharedEx(PEX_PUSH_LOCK PushLock, ULONG Flags) {
    UNREFERENCED_PARAMETER(Flags);
    require_apcs_disabled("ExAcquirePushLockShared");
    auto w = word(*PushLock);
    if (w.load(std::memory_order_relaxed) == exclusive_mark()) {
        report_violation("ExAcquirePushLockShared",
                         "the calling thread already owns this push lock exclusively",
                         current_irql());
        return;
    }
    take([&] {
        ULONG_PTR current = w.load(std::memory_order_seq_cst);
        while ((current & k_exclusive) == 0) {
            if (w.compare_exchange_weak(current, current + k_shared_step, std::memory_order_seq_cst,
                                        std::memory_order_relaxed)) {
                return true;
            }
        }
        return false;
    });
}

NDKSIM_API VOID ExReleasePushLockExclusiveEx(PEX_PUSH_LOCK PushLock, ULONG Flags) {
    UNREFERENCED_PARAMETER(Flags);
    require_irql_at_most("ExReleasePushLockExclusive", APC_LEVEL,
                         "callers must be at IRQL <= APC_LEVEL");
    ULONG_PTR expected = exclusive_mark();
    if (!word(*PushLock).compare_exchange_strong(expected, 0, std::memory_order_seq_cst,
                                                 std::memory_order_relaxed)) {
        report_violation("ExReleasePushLockExclusive",
                         "the calling thread does not own this push lock exclusively",
                         current_irql());
        return;
    }
    push_lock_waiters().wake();
}

NDKSIM_API VOID ExReleasePushLockSharedEx(PEX_PUSH_LOCK PushLock, ULONG Flags) {
    UNREFERENCED_PARAMETER(Flags);
    require_irql_at_most("ExReleasePushLockShared", APC_LEVEL,
                         "callers must be at IRQL <= APC_LEVEL");
    auto w = word(*PushLock);
    ULONG_PTR current = w.load(std::memory_order_relaxed);
    do {
        if ((current & k_exclusive) != 0 || current == 0) {
            report_violation("ExReleasePushLockShared", "the push lock is not held shared",
                             current_irql());
            return;
        }
    } while (!w.compare_exchange_weak(current, current - k_shared_step, std::memory_order_seq_cst,
                                      std::memory_order_relaxed));
    if (current == k_shared_step) {
        push_lock_waiters().wake();
    }
}

}  // extern "C"
