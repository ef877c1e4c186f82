// SPDX-License-Identifier: MIT
// Lookaside lists. Freed blocks are kept in the list's own SLIST (ListHead) up to its depth and
// handed out again; the rest come from and go back to the list's allocate and free routines,
// by default the tracked pool with the list's tag, so cached blocks count as live pool blocks
// until ExDelete*LookasideList* frees them. Windows tunes Depth at run time; the simulator keeps
// it at EX_MAXIMUM_LOOKASIDE_DEPTH_BASE. The counters are the WDK's fields, updated atomically.

#include <string_view>

#include "kernel/irql.hpp"
#include "kernel/violation.hpp"
#include "wdm.h"

namespace ndksim::kernel {
namespace {

// The default routines of LOOKASIDE_LIST_EX, which also receive the list.
PVOID pool_allocate_ex(POOL_TYPE type, SIZE_T bytes, ULONG tag, PLOOKASIDE_LIST_EX) {
    return ExAllocatePoolWithTag(type, bytes, tag);
}

VOID pool_free_ex(PVOID buffer, PLOOKASIDE_LIST_EX) {
    ExFreePool(buffer);
}

void count(ULONG& field) {
    __atomic_add_fetch(&field, 1, __ATOMIC_RELAXED);
}

bool is_paged(POOL_TYPE type) {
    return (static_cast<ULONG>(type) & 1U) != 0;
}

void check_irql(std::string_view function, POOL_TYPE type) {
    // ExAllocateFromPagedLookasideList: IRQL <= APC_LEVEL; the nonpaged forms: <= DISPATCH_LEVEL.
    if (is_paged(type)) {
        require_irql_at_most(function, APC_LEVEL, "a paged list needs IRQL <= APC_LEVEL");
    } else {
        require_irql_at_most(function, DISPATCH_LEVEL, "callers must be at IRQL <= DISPATCH_LEVEL");
    }
}

template <typename General>
void format(General& l, POOL_TYPE type, SIZE_T size, ULONG tag) {
    InitializeSListHead(&l.ListHead);
    l.Depth = EX_MAXIMUM_LOOKASIDE_DEPTH_BASE;
    l.MaximumDepth = EX_MAXIMUM_LOOKASIDE_DEPTH_BASE;
    l.TotalAllocates = 0;
    l.AllocateMisses = 0;
    l.TotalFrees = 0;
    l.FreeMisses = 0;
    l.Type = type;
    l.Tag = tag;
    l.Size = static_cast<ULONG>(size < LOOKASIDE_MINIMUM_BLOCK_SIZE ? LOOKASIDE_MINIMUM_BLOCK_SIZE
                                                                    : size);
    InitializeListHead(&l.ListEntry);
    l.LastTotalAllocates = 0;
    l.LastAllocateMisses = 0;
    l.Future[0] = 0;
    l.Future[1] = 0;
}

// `fresh` makes a new block when none is cached; `release` returns one for good.
template <typename General, typename Fresh>
PVOID take(General& l, Fresh fresh) {
    count(l.TotalAllocates);
    if (PSLIST_ENTRY cached = InterlockedPopEntrySList(&l.ListHead)) {
        return cached;
    }
    count(l.AllocateMisses);
    return fresh();
}

template <typename General, typename Release>
void give(General& l, PVOID block, Release release) {
    count(l.TotalFrees);
    if (QueryDepthSList(&l.ListHead) >= l.Depth) {
        count(l.FreeMisses);
        release(block);
        return;
    }
    InterlockedPushEntrySList(&l.ListHead, static_cast<PSLIST_ENTRY>(block));
}

template <typename General, typename Release>
void drain(General& l, Release release) {
    PSLIST_ENTRY entry = InterlockedFlushSList(&l.ListHead);
    while (entry != nullptr) {
        PSLIST_ENTRY next = entry->Next;
        release(entry);
        entry = next;
    }
}

void initialize(std::string_view function, GENERAL_LOOKASIDE& l, POOL_TYPE type,
                PALLOCATE_FUNCTION allocate, PFREE_FUNCTION free, SIZE_T size, ULONG tag) {
    check_irql(function, type);
    format(l, type, size, tag);
    // Windows stores its own pool routines when the driver gives none; they have these types.
    l.Allocate = allocate != nullptr ? allocate : ExAllocatePoolWithTag;
    l.Free = free != nullptr ? free : ExFreePool;
}

PVOID allocate(std::string_view function, GENERAL_LOOKASIDE& l) {
    check_irql(function, l.Type);
    return take(l, [&] { return l.Allocate(l.Type, l.Size, l.Tag); });
}

void release(std::string_view function, GENERAL_LOOKASIDE& l, PVOID block) {
    check_irql(function, l.Type);
    give(l, block, l.Free);
}

void destroy(std::string_view function, GENERAL_LOOKASIDE& l) {
    check_irql(function, l.Type);
    drain(l, l.Free);
}

}  // namespace
}  // namespace ndksim::kernel

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API VOID ExInitializeNPagedLookasideList(PNPAGED_LOOKASIDE_LIST Lookaside,
                                                PALLOCATE_FUNCTION Allocate, PFREE_FUNCTION Free,
                                                ULONG Flags, SIZE_T Size, ULONG Tag, USHORT Depth) {
    UNREFERENCED_PARAMETER(Flags);
    UNREFERENCED_PARAMETER(Depth);
    initialize("ExInitializeNPagedLookasideList", Lookaside->L, NonPagedPoolNx, Allocate, Free,
               Size, Tag);
}

NDKSIM_API VOID ExDeleteNPagedLookasideList(PNPAGED_LOOKASIDE_LIST Lookaside) {
    destroy("ExDeleteNPagedLookasideList", Lookaside->L);
}

NDKSIM_API PVOID ExAllocateFromNPagedLookasideList(PNPAGED_LOOKASIDE_LIST Lookaside) {
    return allocate("ExAllocateFromNPagedLookasideList", Lookaside->L);
}

NDKSIM_API VOID ExFreeToNPagedLookasideList(PNPAGED_LOOKASIDE_LIST Lookaside, PVOID Entry) {
    release("ExFreeToNPagedLookasideList", Lookaside->L, Entry);
}

NDKSIM_API VOID ExInitializePagedLookasideList(PPAGED_LOOKASIDE_LIST Lookaside,
                                               PALLOCATE_FUNCTION Allocate, PFREE_FUNCTION Free,
                                               ULONG Flags, SIZE_T Size, ULONG Tag, USHORT Depth) {
    UNREFERENCED_PARAMETER(Flags);
    UNREFERENCED_PARAMETER(Depth);
    initialize("ExInitializePagedLookasideList", Lookaside->L, PagedPool, Allocate, Free, Size,
               Tag);
}

NDKSIM_API VOID ExDeletePagedLookasideList(PPAGED_LOOKASIDE_LIST Lookaside) {
    destroy("ExDeletePagedLookasideList", Lookaside->L);
}

NDKSIM_API PVOID ExAllocateFromPagedLookasideList(PPAGED_LOOKASIDE_LIST Lookaside) {
    return allocate("ExAllocateFromPagedLookasideList", Lookaside->L);
}

NDKSIM_API VOID ExFreeToPagedLookasideList(PPAGED_LOOKASIDE_LIST Lookaside, PVOID Entry) {
    release("ExFreeToPagedLookasideList", Lookaside->L, Entry);
}

NDKSIM_API NTSTATUS ExInitializeLookasideListEx(PLOOKASIDE_LIST_EX Lookaside,
                                                PALLOCATE_FUNCTION_EX Allocate,
                                                PFREE_FUNCTION_EX Free, POOL_TYPE PoolType,
                                                ULONG Flags, SIZE_T Size, ULONG Tag, USHORT Depth) {
    UNREFERENCED_PARAMETER(Depth);
    check_irql("ExInitializeLookasideListEx", PoolType);
    constexpr ULONG k_both =
        EX_LOOKASIDE_LIST_EX_FLAGS_RAISE_ON_FAIL | EX_LOOKASIDE_LIST_EX_FLAGS_FAIL_NO_RAISE;
    // ExInitializeLookasideListEx: STATUS_INVALID_PARAMETER_5 for an invalid Flags value.
    if ((Flags & ~k_both) != 0 || Flags == k_both) {
        return STATUS_INVALID_PARAMETER_5;
    }
    GENERAL_LOOKASIDE_POOL& l = Lookaside->L;
    format(l, PoolType, Size, Tag);
    l.AllocateEx = Allocate != nullptr ? Allocate : pool_allocate_ex;
    l.FreeEx = Free != nullptr ? Free : pool_free_ex;
    return STATUS_SUCCESS;
}

NDKSIM_API VOID ExDeleteLookasideListEx(PLOOKASIDE_LIST_EX Lookaside) {
    GENERAL_LOOKASIDE_POOL& l = Lookaside->L;
    check_irql("ExDeleteLookasideListEx", l.Type);
    drain(l, [&](PVOID block) { l.FreeEx(block, Lookaside); });
}

NDKSIM_API PVOID ExAllocateFromLookasideListEx(PLOOKASIDE_LIST_EX Lookaside) {
    GENERAL_LOOKASIDE_POOL& l = Lookaside->L;
    check_irql("ExAllocateFromLookasideListEx", l.Type);
    return take(l, [&] { return l.AllocateEx(l.Type, l.Size, l.Tag, Lookaside); });
}

NDKSIM_API VOID ExFreeToLookasideListEx(PLOOKASIDE_LIST_EX Lookaside, PVOID Entry) {
    GENERAL_LOOKASIDE_POOL& l = Lookaside->L;
    check_irql("ExFreeToLookasideListEx", l.Type);
    give(l, Entry, [&](PVOID block) { l.FreeEx(block, Lookaside); });
}

}  // extern "C"
