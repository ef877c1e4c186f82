// SPDX-License-Identifier: MIT
// Interlocked singly linked lists (SLIST_HEADER) and the spin-lock-protected LIST_ENTRY routines
// (ExInterlockedInsertHeadList and friends). Windows updates an SLIST header with a 16-byte
// compare-exchange; the simulator serializes each header's updates with one of a fixed set of
// locks chosen by the header's address, which keeps the header in its Windows encoding
// (Depth, Sequence, NextEntry = first entry >> 4) and cannot suffer from ABA.

#include <array>
#include <cstdint>
#include <functional>
#include <mutex>

#include "kernel/irql.hpp"
#include "kernel/violation.hpp"
#include "wdm.h"

namespace ndksim::kernel {
namespace {

constexpr std::size_t k_stripes = 64;

std::array<std::mutex, k_stripes>& the_stripes() {
    static auto* const instance = new std::array<std::mutex, k_stripes>;
    return *instance;
}

std::mutex& stripe_of(const SLIST_HEADER* head) {
    return the_stripes()[(reinterpret_cast<std::uintptr_t>(head) >> 4) % k_stripes];
}

PSLIST_ENTRY first_of(const SLIST_HEADER& head) {
    return reinterpret_cast<PSLIST_ENTRY>(static_cast<std::uintptr_t>(head.HeaderX64.NextEntry)
                                          << 4);
}

// With the stripe locked: makes `first` the first entry with `depth` entries, bumping the
// sequence as every Windows update does.
void store(SLIST_HEADER& head, PSLIST_ENTRY first, std::uint64_t depth) {
    head.HeaderX64.NextEntry = reinterpret_cast<std::uintptr_t>(first) >> 4;
    head.HeaderX64.Depth = depth;
    head.HeaderX64.Sequence = head.HeaderX64.Sequence + 1;
}

// Runs `op` on the list with Lock held, at DISPATCH_LEVEL at least (Windows also disables
// interrupts), from any IRQL.
PLIST_ENTRY under_lock(PKSPIN_LOCK lock, const std::function<PLIST_ENTRY()>& op) {
    const std::uint8_t old = current_irql();
    if (old < DISPATCH_LEVEL) {
        set_irql(DISPATCH_LEVEL);
    }
    KeAcquireSpinLockAtDpcLevel(lock);
    PLIST_ENTRY result = op();
    KeReleaseSpinLockFromDpcLevel(lock);
    set_irql(old);
    return result;
}

}  // namespace
}  // namespace ndksim::kernel

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API VOID InitializeSListHead(PSLIST_HEADER SListHead) {
    const std::lock_guard lock(stripe_of(SListHead));
    SListHead->Alignment = 0;
    SListHead->Region = 0;
}

NDKSIM_API PSLIST_ENTRY InterlockedPushEntrySList(PSLIST_HEADER ListHead, PSLIST_ENTRY ListEntry) {
    // InterlockedPushEntrySList: "All list items must be aligned on a
    // MEMORY_ALLOCATION_ALIGNMENT boundary" (16 bytes on x64).
    if ((reinterpret_cast<std::uintptr_t>(ListEntry) & 15U) != 0) {
        report_violation("InterlockedPushEntrySList", "the entry is not 16-byte aligned",
                         current_irql());
        return nullptr;
    }
    const std::lock_guard lock(stripe_of(ListHead));
    PSLIST_ENTRY first = first_of(*ListHead);
    ListEntry->Next = first;
    store(*ListHead, ListEntry, ListHead->HeaderX64.Depth + 1);
    return first;
}

NDKSIM_API PSLIST_ENTRY InterlockedPopEntrySList(PSLIST_HEADER ListHead) {
    const std::lock_guard lock(stripe_of(ListHead));
    PSLIST_ENTRY first = first_of(*ListHead);
    if (first != nullptr) {
        store(*ListHead, first->Next, ListHead->HeaderX64.Depth - 1);
    }
    return first;
}

NDKSIM_API PSLIST_ENTRY InterlockedFlushSList(PSLIST_HEADER ListHead) {
    const std::lock_guard lock(stripe_of(ListHead));
    PSLIST_ENTRY first = first_of(*ListHead);
    if (first != nullptr) {
        store(*ListHead, nullptr, 0);
    }
    return first;
}

NDKSIM_API USHORT QueryDepthSList(PSLIST_HEADER SListHead) {
    const std::lock_guard lock(stripe_of(SListHead));
    return static_cast<USHORT>(SListHead->HeaderX64.Depth);
}

NDKSIM_API PSLIST_ENTRY FirstEntrySList(PSLIST_HEADER SListHead) {
    const std::lock_guard lock(stripe_of(SListHead));
    return first_of(*SListHead);
}

NDKSIM_API PLIST_ENTRY ExInterlockedInsertHeadList(PLIST_ENTRY ListHead, PLIST_ENTRY ListEntry,
                                                   PKSPIN_LOCK Lock) {
    return under_lock(Lock, [&]() -> PLIST_ENTRY {
        PLIST_ENTRY first = IsListEmpty(ListHead) ? nullptr : ListHead->Flink;
        InsertHeadList(ListHead, ListEntry);
        return first;
    });
}

NDKSIM_API PLIST_ENTRY ExInterlockedInsertTailList(PLIST_ENTRY ListHead, PLIST_ENTRY ListEntry,
                                                   PKSPIN_LOCK Lock) {
    return under_lock(Lock, [&]() -> PLIST_ENTRY {
        PLIST_ENTRY last = IsListEmpty(ListHead) ? nullptr : ListHead->Blink;
        InsertTailList(ListHead, ListEntry);
        return last;
    });
}

NDKSIM_API PLIST_ENTRY ExInterlockedRemoveHeadList(PLIST_ENTRY ListHead, PKSPIN_LOCK Lock) {
    return under_lock(Lock, [&]() -> PLIST_ENTRY {
        return IsListEmpty(ListHead) ? nullptr : RemoveHeadList(ListHead);
    });
}

}  // extern "C"
