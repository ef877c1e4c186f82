/* SPDX-License-Identifier: MIT */
/** \file
 * ndksim_kernel.h - the Windows kernel support routines NDK consumer drivers call (IRQL, events,
 * spin locks, pool, lists, interlocked operations, assertions), run in user mode on Linux.
 * Included by wdm.h; include wdm.h, not this file.
 *
 * Names, values and x64 layouts are the WDK's. Each simulated thread has its own IRQL, starting at
 * PASSIVE_LEVEL; the simulator checks the IRQL rules of each routine at the call and reports a
 * violation naming the rule, the routine and the IRQL. By default a violation aborts the process
 * (as a bug check would stop Windows); with the environment variable NDKSIM_IRQL_VIOLATIONS=log
 * it is logged at error level, counted (ndksim_kernel_irql_violations) and the call goes on.
 * Pool allocations are tracked by tag for leak checks (ndksim_kernel_pool_live).
 * docs/kernel-runtime.md lists the surface and what differs from Windows.
 */
#pragma once

#ifndef NDKSIM_WDM_H_INCLUDED
#error "include wdm.h, which includes ndksim_kernel.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* IRQL                                                                                        */
/* ------------------------------------------------------------------------------------------ */

/** x64 values; PASSIVE_LEVEL, APC_LEVEL and DISPATCH_LEVEL are in wdm.h. */
#define HIGH_LEVEL 15

/** The calling thread's IRQL. Any IRQL. */
NDKSIM_API KIRQL KeGetCurrentIrql(void);

/**
 * Raises the calling thread's IRQL to NewIrql and stores the previous IRQL in *OldIrql. Rule:
 * NewIrql must be >= the current IRQL; a lower NewIrql is a violation (Windows bug-checks).
 */
NDKSIM_API VOID KeRaiseIrql(_In_ KIRQL NewIrql, _Out_ PKIRQL OldIrql);

/**
 * Restores the IRQL saved by KeRaiseIrql. Rule: NewIrql must be <= the current IRQL; a higher
 * NewIrql is a violation.
 */
NDKSIM_API VOID KeLowerIrql(_In_ KIRQL NewIrql);

/** Raises to DISPATCH_LEVEL and returns the previous IRQL. Rule: current IRQL <= DISPATCH_LEVEL. */
NDKSIM_API KIRQL KeRaiseIrqlToDpcLevel(void);

/* ------------------------------------------------------------------------------------------ */
/* Doubly and singly linked lists                                                              */
/* ------------------------------------------------------------------------------------------ */

typedef struct _LIST_ENTRY {
    struct _LIST_ENTRY* Flink;
    struct _LIST_ENTRY* Blink;
} LIST_ENTRY, *PLIST_ENTRY;

/* ------------------------------------------------------------------------------------------ */
/* List routines (WDK inline functions)                                                        */
/* ------------------------------------------------------------------------------------------ */

typedef struct _SINGLE_LIST_ENTRY {
    struct _SINGLE_LIST_ENTRY* Next;
} SINGLE_LIST_ENTRY, *PSINGLE_LIST_ENTRY;

/**
 * Reports a corrupt LIST_ENTRY link next to Entry as a violation (Windows fails fast with
 * FAST_FAIL_CORRUPT_LIST_ENTRY). Called by the list routines below; not for consumer use.
 */
NDKSIM_API VOID ndksim_kernel_list_corruption(_In_ const char* Function, _In_ PLIST_ENTRY Entry);

/** Makes ListHead an empty list (both links point at the head). */
static inline VOID InitializeListHead(_Out_ PLIST_ENTRY ListHead) {
    ListHead->Flink = ListHead;
    ListHead->Blink = ListHead;
}

/** TRUE when the list has no entries. */
static inline BOOLEAN IsListEmpty(_In_ const LIST_ENTRY* ListHead) {
    return ListHead->Flink == ListHead;
}

/**
 * Unlinks Entry from its list and returns TRUE when the list is empty afterwards. The neighbours'
 * links are checked first, as the WDK's version does; a broken link is reported and nothing is
 * unlinked.
 */
static inline BOOLEAN RemoveEntryList(_In_ PLIST_ENTRY Entry) {
    PLIST_ENTRY next = Entry->Flink;
    PLIST_ENTRY prev = Entry->Blink;
    if (next->Blink != Entry || prev->Flink != Entry) {
        ndksim_kernel_list_corruption("RemoveEntryList", Entry);
        return FALSE;
    }
    prev->Flink = next;
    next->Blink = prev;
    return next == prev;
}

/** Unlinks and returns the first entry; on an empty list returns ListHead itself. */
static inline PLIST_ENTRY RemoveHeadList(_Inout_ PLIST_ENTRY ListHead) {
    PLIST_ENTRY entry = ListHead->Flink;
    RemoveEntryList(entry);
    return entry;
}

/** Unlinks and returns the last entry; on an empty list returns ListHead itself. */
static inline PLIST_ENTRY RemoveTailList(_Inout_ PLIST_ENTRY ListHead) {
    PLIST_ENTRY entry = ListHead->Blink;
    RemoveEntryList(entry);
    return entry;
}

/**
 * Links Entry in between two adjacent entries after checking that they are linked to each other
 * (the WDK's insert routines check the same link). Not for consumer use.
 */
static inline VOID ndksim_list_insert_between(const char* Function, PLIST_ENTRY Prev,
                                              PLIST_ENTRY Next, PLIST_ENTRY Entry) {
    if (Prev->Flink != Next || Next->Blink != Prev) {
        ndksim_kernel_list_corruption(Function, Prev);
        return;
    }
    Entry->Flink = Next;
    Entry->Blink = Prev;
    Prev->Flink = Entry;
    Next->Blink = Entry;
}

/** Links Entry in as the first entry of the list. */
static inline VOID InsertHeadList(_Inout_ PLIST_ENTRY ListHead, _Out_ PLIST_ENTRY Entry) {
    ndksim_list_insert_between("InsertHeadList", ListHead, ListHead->Flink, Entry);
}

/** Links Entry in as the last entry of the list. */
static inline VOID InsertTailList(_Inout_ PLIST_ENTRY ListHead, _Out_ PLIST_ENTRY Entry) {
    ndksim_list_insert_between("InsertTailList", ListHead->Blink, ListHead, Entry);
}

/** Pushes Entry onto the front of a singly linked list. */
static inline VOID PushEntryList(_Inout_ PSINGLE_LIST_ENTRY ListHead,
                                 _Out_ PSINGLE_LIST_ENTRY Entry) {
    Entry->Next = ListHead->Next;
    ListHead->Next = Entry;
}

/** Pops the first entry of a singly linked list; NULL when it is empty. */
static inline PSINGLE_LIST_ENTRY PopEntryList(_Inout_ PSINGLE_LIST_ENTRY ListHead) {
    PSINGLE_LIST_ENTRY first = ListHead->Next;
    if (first != NULL) {
        ListHead->Next = first->Next;
    }
    return first;
}

/* ------------------------------------------------------------------------------------------ */
/* Interlocked operations                                                                      */
/* ------------------------------------------------------------------------------------------ */

/**
 * Full-barrier atomic operations on naturally aligned operands, as the Windows intrinsics are.
 * Increment, Decrement and Add return the new value; Exchange, CompareExchange, ExchangeAdd, Or,
 * And and Xor return the previous value. CompareExchange stores Exchange only when the target
 * equals Comperand.
 */
#define NDKSIM_INTERLOCKED_BINARY(name, builtin, type)           \
    static inline type name(type volatile* Target, type Value) { \
        return builtin(Target, Value, __ATOMIC_SEQ_CST);         \
    }
#define NDKSIM_INTERLOCKED_FAMILY(suffix, type)                                             \
    static inline type InterlockedIncrement##suffix(type volatile* Addend) {                \
        return __atomic_add_fetch(Addend, 1, __ATOMIC_SEQ_CST);                             \
    }                                                                                       \
    static inline type InterlockedDecrement##suffix(type volatile* Addend) {                \
        return __atomic_sub_fetch(Addend, 1, __ATOMIC_SEQ_CST);                             \
    }                                                                                       \
    static inline type InterlockedCompareExchange##suffix(type volatile* Destination,       \
                                                          type Exchange, type Comperand) {  \
        __atomic_compare_exchange_n(Destination, &Comperand, Exchange, 0, __ATOMIC_SEQ_CST, \
                                    __ATOMIC_SEQ_CST);                                      \
        return Comperand;                                                                   \
    }                                                                                       \
    NDKSIM_INTERLOCKED_BINARY(InterlockedAdd##suffix, __atomic_add_fetch, type)             \
    NDKSIM_INTERLOCKED_BINARY(InterlockedExchangeAdd##suffix, __atomic_fetch_add, type)     \
    NDKSIM_INTERLOCKED_BINARY(InterlockedExchange##suffix, __atomic_exchange_n, type)       \
    NDKSIM_INTERLOCKED_BINARY(InterlockedOr##suffix, __atomic_fetch_or, type)               \
    NDKSIM_INTERLOCKED_BINARY(InterlockedAnd##suffix, __atomic_fetch_and, type)             \
    NDKSIM_INTERLOCKED_BINARY(InterlockedXor##suffix, __atomic_fetch_xor, type)

///@{
/**
 * InterlockedIncrement, InterlockedDecrement, InterlockedCompareExchange, InterlockedAdd,
 * InterlockedExchangeAdd, InterlockedExchange, InterlockedOr, InterlockedAnd and InterlockedXor
 * on LONG, and their LONG64 forms (suffix 64): full-barrier atomics as described above.
 */
NDKSIM_INTERLOCKED_FAMILY(, LONG)
NDKSIM_INTERLOCKED_FAMILY(64, LONG64)
///@}

/** Swaps the pointer at Target for Value and returns the previous pointer. */
static inline PVOID InterlockedExchangePointer(PVOID volatile* Target, PVOID Value) {
    return __atomic_exchange_n(Target, Value, __ATOMIC_SEQ_CST);
}

/** Stores Exchange at Destination if it holds Comperand; returns the previous pointer. */
static inline PVOID InterlockedCompareExchangePointer(PVOID volatile* Destination, PVOID Exchange,
                                                      PVOID Comperand) {
    __atomic_compare_exchange_n(Destination, &Comperand, Exchange, 0, __ATOMIC_SEQ_CST,
                                __ATOMIC_SEQ_CST);
    return Comperand;
}

/**
 * The WDK's ordered plain loads and stores of shared variables (ReadAcquire, WriteRelease and
 * their NoFence forms): Acquire loads keep later accesses after them, Release stores keep earlier
 * accesses before them, NoFence forms are single untorn accesses without ordering. A driver
 * reads a variable other threads change with Interlocked* through these, not through a bare
 * volatile read (the C11 model, which ThreadSanitizer checks, calls that a data race).
 */
#define NDKSIM_ORDERED_ACCESS(type, read_acquire, read_no_fence, write_release, write_no_fence) \
    static inline type read_acquire(type const volatile* Source) {                              \
        return __atomic_load_n(Source, __ATOMIC_ACQUIRE);                                       \
    }                                                                                           \
    static inline type read_no_fence(type const volatile* Source) {                             \
        return __atomic_load_n(Source, __ATOMIC_RELAXED);                                       \
    }                                                                                           \
    static inline VOID write_release(type volatile* Destination, type Value) {                  \
        __atomic_store_n(Destination, Value, __ATOMIC_RELEASE);                                 \
    }                                                                                           \
    static inline VOID write_no_fence(type volatile* Destination, type Value) {                 \
        __atomic_store_n(Destination, Value, __ATOMIC_RELAXED);                                 \
    }

///@{
/**
 * ReadAcquire, ReadNoFence, WriteRelease and WriteNoFence on LONG, their LONG64 forms (suffix
 * 64) and their pointer forms (ReadPointerAcquire, ...): ordered accesses as described above.
 */
NDKSIM_ORDERED_ACCESS(LONG, ReadAcquire, ReadNoFence, WriteRelease, WriteNoFence)
NDKSIM_ORDERED_ACCESS(LONG64, ReadAcquire64, ReadNoFence64, WriteRelease64, WriteNoFence64)
NDKSIM_ORDERED_ACCESS(PVOID, ReadPointerAcquire, ReadPointerNoFence, WritePointerRelease,
                      WritePointerNoFence)
///@}

/* ------------------------------------------------------------------------------------------ */
/* Assertions                                                                                  */
/* ------------------------------------------------------------------------------------------ */

/**
 * Reports a failed ASSERT / NT_ASSERT as a violation (abort by default, as a debugger break
 * would stop a checked build). Called by the macros below; not for consumer use.
 */
NDKSIM_API VOID ndksim_kernel_assertion_failed(_In_ const char* Expression, _In_ const char* File,
                                               _In_ int Line);

/**
 * As in the WDK, ASSERT and NT_ASSERT check their expression only in debug builds (DBG defined
 * nonzero) and do not evaluate it otherwise; NT_VERIFY always evaluates it.
 */
#if defined(DBG) && DBG
#define ASSERT(exp) \
    ((exp) ? NDKSIM_SCAST(void, 0) : ndksim_kernel_assertion_failed(#exp, __FILE__, __LINE__))
#define NT_ASSERT(exp) ASSERT(exp)
#define NT_VERIFY(exp) \
    ((exp) ? TRUE : (ndksim_kernel_assertion_failed(#exp, __FILE__, __LINE__), FALSE))
#else
#define ASSERT(exp) NDKSIM_SCAST(void, 0)
#define NT_ASSERT(exp) NDKSIM_SCAST(void, 0)
#define NT_VERIFY(exp) ((exp) ? TRUE : FALSE)
#endif

/* ------------------------------------------------------------------------------------------ */
/* Events and waits                                                                            */
/* ------------------------------------------------------------------------------------------ */

typedef enum _EVENT_TYPE { NotificationEvent = 0, SynchronizationEvent = 1 } EVENT_TYPE;

typedef enum _WAIT_TYPE { WaitAll = 0, WaitAny = 1 } WAIT_TYPE;

/** Only Executive (and UserRequest) matter to drivers; the simulator ignores the reason. */
typedef enum _KWAIT_REASON { Executive = 0, UserRequest = 6 } KWAIT_REASON;

#define STATUS_WAIT_0 NDKSIM_SCAST(NTSTATUS, 0x00000000L)

/** Waits on up to this many objects need no KWAIT_BLOCK array (WDK value). */
#define THREAD_WAIT_OBJECTS 3

/**
 * The x64 dispatcher header every waitable object starts with (0x18 bytes). The simulator keeps
 * an event's state in SignalState and marks an initialized object by pointing WaitListHead at
 * itself, as Windows' empty wait list does; waiters are tracked outside the consumer's memory.
 */
typedef struct _DISPATCHER_HEADER {
    UCHAR Type; /**< EVENT_TYPE of an event */
    UCHAR Signalling;
    UCHAR Size; /**< object size in LONGs */
    UCHAR Reserved1;
    LONG SignalState; /**< nonzero: signaled */
    LIST_ENTRY WaitListHead;
} DISPATCHER_HEADER, *PDISPATCHER_HEADER;

typedef struct _KEVENT {
    DISPATCHER_HEADER Header;
} KEVENT, *PKEVENT, *PRKEVENT;

/**
 * A wait block for KeWaitForMultipleObjects with more than THREAD_WAIT_OBJECTS objects. The
 * simulator does not use its contents; it only keeps the WDK's x64 size (0x30) so consumers can
 * allocate arrays of it.
 */
typedef struct _KWAIT_BLOCK {
    ULONG_PTR Opaque[6];
} KWAIT_BLOCK, *PKWAIT_BLOCK;

/**
 * Initializes an event of the given type, signaled when State is TRUE. A notification event stays
 * signaled until reset and releases every waiter; a synchronization event releases one waiter and
 * resets itself. Any IRQL (the storage must be resident).
 */
NDKSIM_API VOID KeInitializeEvent(_Out_ PRKEVENT Event, _In_ EVENT_TYPE Type, _In_ BOOLEAN State);

/**
 * Signals the event and returns its previous state (nonzero: it was signaled). Increment (a
 * priority boost) and Wait (the caller's promise to wait next) are accepted and ignored. Rule:
 * IRQL <= DISPATCH_LEVEL.
 */
NDKSIM_API LONG KeSetEvent(_Inout_ PRKEVENT Event, _In_ LONG Increment, _In_ BOOLEAN Wait);

/** Sets the event not signaled and returns its previous state. Rule: IRQL <= DISPATCH_LEVEL. */
NDKSIM_API LONG KeResetEvent(_Inout_ PRKEVENT Event);

/** Sets the event not signaled. Rule: IRQL <= DISPATCH_LEVEL. */
NDKSIM_API VOID KeClearEvent(_Inout_ PRKEVENT Event);

/** The event's current state (nonzero: signaled). Any IRQL. */
NDKSIM_API LONG KeReadStateEvent(_In_ PRKEVENT Event);

/**
 * Waits until Object (a KEVENT) is signaled; a synchronization event is reset by the satisfied
 * wait. Timeout: NULL waits forever; zero tests the state without waiting; negative is relative,
 * positive is an absolute system time (both in 100 ns units, absolute counted from 1601-01-01
 * UTC as KeQuerySystemTime returns). Returns STATUS_SUCCESS or STATUS_TIMEOUT. WaitReason,
 * WaitMode and Alertable are accepted and ignored (no APCs are delivered). Rule: IRQL <=
 * DISPATCH_LEVEL, and IRQL <= APC_LEVEL unless Timeout points to zero.
 */
NDKSIM_API NTSTATUS KeWaitForSingleObject(_In_ PVOID Object, _In_ KWAIT_REASON WaitReason,
                                          _In_ KPROCESSOR_MODE WaitMode, _In_ BOOLEAN Alertable,
                                          _In_opt_ PLARGE_INTEGER Timeout);

/**
 * Waits on Count events: WaitAny returns STATUS_WAIT_0 + the index of the first signaled one
 * (resetting it if it is a synchronization event); WaitAll returns STATUS_WAIT_0 once all are
 * signaled at the same moment (resetting the synchronization ones). Timeout as for
 * KeWaitForSingleObject; STATUS_TIMEOUT when it expires. WaitBlockArray is required when Count >
 * THREAD_WAIT_OBJECTS (a violation otherwise) but its contents are unused. Rules: Count >= 1, and
 * the IRQL rules of KeWaitForSingleObject.
 */
NDKSIM_API NTSTATUS KeWaitForMultipleObjects(_In_ ULONG Count, _In_reads_(Count) PVOID Object[],
                                             _In_ WAIT_TYPE WaitType, _In_ KWAIT_REASON WaitReason,
                                             _In_ KPROCESSOR_MODE WaitMode, _In_ BOOLEAN Alertable,
                                             _In_opt_ PLARGE_INTEGER Timeout,
                                             _Out_opt_ PKWAIT_BLOCK WaitBlockArray);

/** The current system time: 100 ns units since 1601-01-01 UTC. Any IRQL. */
NDKSIM_API VOID KeQuerySystemTime(_Out_ PLARGE_INTEGER CurrentTime);

/* ------------------------------------------------------------------------------------------ */
/* Spin locks                                                                                  */
/* ------------------------------------------------------------------------------------------ */

/**
 * The lock word. The simulator spins on it atomically: 0 is free, otherwise it holds a token of
 * the owning thread (so releasing a lock the caller does not hold is detected).
 */
typedef ULONG_PTR KSPIN_LOCK;
typedef KSPIN_LOCK* PKSPIN_LOCK;

typedef struct _KSPIN_LOCK_QUEUE {
    struct _KSPIN_LOCK_QUEUE* volatile Next;
    PKSPIN_LOCK volatile Lock;
} KSPIN_LOCK_QUEUE, *PKSPIN_LOCK_QUEUE;

/** The caller-provided (usually on the stack) handle of an in-stack queued spin lock. */
typedef struct _KLOCK_QUEUE_HANDLE {
    KSPIN_LOCK_QUEUE LockQueue;
    KIRQL OldIrql;
} KLOCK_QUEUE_HANDLE, *PKLOCK_QUEUE_HANDLE;

/** Makes the lock free. Any IRQL. */
NDKSIM_API VOID KeInitializeSpinLock(_Out_ PKSPIN_LOCK SpinLock);

/**
 * Raises to DISPATCH_LEVEL, acquires the lock and returns the previous IRQL. Rules: IRQL <=
 * DISPATCH_LEVEL; acquiring a lock the calling thread already holds is a violation (it would
 * deadlock on Windows; in log mode the call returns without acquiring again).
 */
NDKSIM_API KIRQL KeAcquireSpinLockRaiseToDpc(_Inout_ PKSPIN_LOCK SpinLock);

/** Acquires SpinLock and stores the previous IRQL in *OldIrql (the WDK's macro form). */
#define KeAcquireSpinLock(SpinLock, OldIrql) (*(OldIrql) = KeAcquireSpinLockRaiseToDpc(SpinLock))

/**
 * Releases the lock and lowers the IRQL to NewIrql (the value the acquire returned). Rules: the
 * caller holds the lock; IRQL == DISPATCH_LEVEL.
 */
NDKSIM_API VOID KeReleaseSpinLock(_Inout_ PKSPIN_LOCK SpinLock, _In_ KIRQL NewIrql);

/** Acquires the lock without changing the IRQL. Rule: IRQL >= DISPATCH_LEVEL. */
NDKSIM_API VOID KeAcquireSpinLockAtDpcLevel(_Inout_ PKSPIN_LOCK SpinLock);

/** Releases a lock taken at DISPATCH_LEVEL. Rules: the caller holds it; IRQL >= DISPATCH_LEVEL. */
NDKSIM_API VOID KeReleaseSpinLockFromDpcLevel(_Inout_ PKSPIN_LOCK SpinLock);

/**
 * Raises to DISPATCH_LEVEL, acquires the lock and records it and the previous IRQL in
 * *LockHandle. Rule: IRQL <= DISPATCH_LEVEL. The simulator does not queue waiters in FIFO order;
 * it spins on the lock word like KeAcquireSpinLock.
 */
NDKSIM_API VOID KeAcquireInStackQueuedSpinLock(_Inout_ PKSPIN_LOCK SpinLock,
                                               _Out_ PKLOCK_QUEUE_HANDLE LockHandle);

/**
 * Releases the lock recorded in *LockHandle and restores its saved IRQL. Rule: the caller holds
 * the lock.
 */
NDKSIM_API VOID KeReleaseInStackQueuedSpinLock(_In_ PKLOCK_QUEUE_HANDLE LockHandle);

/* ------------------------------------------------------------------------------------------ */
/* Pool                                                                                        */
/* ------------------------------------------------------------------------------------------ */

/** Pool kinds of the older allocation routines (WDK values). Odd base values are paged. */
typedef enum _POOL_TYPE {
    NonPagedPool = 0,
    NonPagedPoolExecute = 0,
    PagedPool = 1,
    NonPagedPoolMustSucceed = 2,
    DontUseThisType = 3,
    NonPagedPoolCacheAligned = 4,
    PagedPoolCacheAligned = 5,
    NonPagedPoolCacheAlignedMustS = 6,
    MaxPoolType = 7,
    NonPagedPoolSession = 32,
    PagedPoolSession = 33,
    NonPagedPoolNx = 512,
    NonPagedPoolNxCacheAligned = 516,
    NonPagedPoolSessionNx = 544
} POOL_TYPE;

typedef enum _EX_POOL_PRIORITY {
    LowPoolPriority = 0,
    LowPoolPrioritySpecialPoolOverrun = 8,
    LowPoolPrioritySpecialPoolUnderrun = 9,
    NormalPoolPriority = 16,
    NormalPoolPrioritySpecialPoolOverrun = 24,
    NormalPoolPrioritySpecialPoolUnderrun = 25,
    HighPoolPriority = 32,
    HighPoolPrioritySpecialPoolOverrun = 40,
    HighPoolPrioritySpecialPoolUnderrun = 41
} EX_POOL_PRIORITY;

/** ExAllocatePool2's flags (WDK values). Exactly one of the three pool kinds must be given. */
typedef ULONG64 POOL_FLAGS;
#define POOL_FLAG_USE_QUOTA NDKSIM_SCAST(POOL_FLAGS, 0x0000000000000001ULL)
#define POOL_FLAG_UNINITIALIZED NDKSIM_SCAST(POOL_FLAGS, 0x0000000000000002ULL)
#define POOL_FLAG_SESSION NDKSIM_SCAST(POOL_FLAGS, 0x0000000000000004ULL)
#define POOL_FLAG_CACHE_ALIGNED NDKSIM_SCAST(POOL_FLAGS, 0x0000000000000008ULL)
#define POOL_FLAG_RAISE_ON_FAILURE NDKSIM_SCAST(POOL_FLAGS, 0x0000000000000020ULL)
#define POOL_FLAG_NON_PAGED NDKSIM_SCAST(POOL_FLAGS, 0x0000000000000040ULL)
#define POOL_FLAG_NON_PAGED_EXECUTE NDKSIM_SCAST(POOL_FLAGS, 0x0000000000000080ULL)
#define POOL_FLAG_PAGED NDKSIM_SCAST(POOL_FLAGS, 0x0000000000000100ULL)

/**
 * Allocates NumberOfBytes of pool recorded under Tag; the contents are not initialized. Blocks
 * are 16-byte aligned, and page-aligned when NumberOfBytes >= PAGE_SIZE. Returns NULL when memory
 * runs out. Rules: IRQL <= DISPATCH_LEVEL, and <= APC_LEVEL for a paged PoolType.
 */
NDKSIM_API PVOID ExAllocatePoolWithTag(_In_ POOL_TYPE PoolType, _In_ SIZE_T NumberOfBytes,
                                       _In_ ULONG Tag);

/** ExAllocatePoolWithTag with a priority, which the simulator ignores. Same rules. */
NDKSIM_API PVOID ExAllocatePoolWithTagPriority(_In_ POOL_TYPE PoolType, _In_ SIZE_T NumberOfBytes,
                                               _In_ ULONG Tag, _In_ EX_POOL_PRIORITY Priority);

/** ExAllocatePoolWithTag with the block zeroed (a WDK inline, a function here). Same rules. */
NDKSIM_API PVOID ExAllocatePoolZero(_In_ POOL_TYPE PoolType, _In_ SIZE_T NumberOfBytes,
                                    _In_ ULONG Tag);

/**
 * Allocates zeroed pool (not zeroed with POOL_FLAG_UNINITIALIZED) of the one kind Flags names
 * (POOL_FLAG_NON_PAGED, POOL_FLAG_NON_PAGED_EXECUTE or POOL_FLAG_PAGED); returns NULL when Flags
 * names none or several, or memory runs out. Quota, session and cache-alignment flags are
 * accepted and ignored; POOL_FLAG_RAISE_ON_FAILURE cannot raise on Linux and returns NULL.
 * Rules as for ExAllocatePoolWithTag.
 */
NDKSIM_API PVOID ExAllocatePool2(_In_ POOL_FLAGS Flags, _In_ SIZE_T NumberOfBytes, _In_ ULONG Tag);

/**
 * Frees a pool block. Rules: P is a live pool allocation (a double free or a foreign pointer is a
 * violation and frees nothing); a nonzero Tag must equal the allocation's tag (a violation, the
 * block is freed anyway); IRQL <= DISPATCH_LEVEL, <= APC_LEVEL for paged pool.
 */
NDKSIM_API VOID ExFreePoolWithTag(_In_ PVOID P, _In_ ULONG Tag);

/** ExFreePoolWithTag without the tag check. */
NDKSIM_API VOID ExFreePool(_In_ PVOID P);

/** Live pool allocations with this tag, or with any tag when Tag is 0 (for leak checks). */
NDKSIM_API SIZE_T ndksim_kernel_pool_live(ULONG Tag);

/**
 * Logs every live pool allocation (size, address, tag, pool kind) at error level and returns
 * how many there are; call it at unload to find leaks.
 */
NDKSIM_API SIZE_T ndksim_kernel_pool_report(void);

/* ------------------------------------------------------------------------------------------ */
/* Violation reports                                                                           */
/* ------------------------------------------------------------------------------------------ */

/**
 * How many IRQL and kernel-rule violations this process has reported in log mode
 * (NDKSIM_IRQL_VIOLATIONS=log). In the default mode the first violation aborts.
 */
NDKSIM_API ULONG64 ndksim_kernel_irql_violations(void);

/* ------------------------------------------------------------------------------------------ */
/* Layout checks (WDK x64 sizes)                                                               */
/* ------------------------------------------------------------------------------------------ */

#if NDKSIM_ABI_LAYOUT_CHECKS
NDKSIM_STATIC_ASSERT(sizeof(LIST_ENTRY) == 0x10, "LIST_ENTRY size");
NDKSIM_STATIC_ASSERT(sizeof(DISPATCHER_HEADER) == 0x18, "DISPATCHER_HEADER size");
NDKSIM_STATIC_ASSERT(offsetof(DISPATCHER_HEADER, SignalState) == 0x04, "SignalState offset");
NDKSIM_STATIC_ASSERT(offsetof(DISPATCHER_HEADER, WaitListHead) == 0x08, "WaitListHead offset");
NDKSIM_STATIC_ASSERT(sizeof(KEVENT) == 0x18, "KEVENT size");
NDKSIM_STATIC_ASSERT(sizeof(KWAIT_BLOCK) == 0x30, "KWAIT_BLOCK size");
NDKSIM_STATIC_ASSERT(sizeof(KSPIN_LOCK) == 0x08, "KSPIN_LOCK size");
NDKSIM_STATIC_ASSERT(sizeof(KSPIN_LOCK_QUEUE) == 0x10, "KSPIN_LOCK_QUEUE size");
NDKSIM_STATIC_ASSERT(sizeof(KLOCK_QUEUE_HANDLE) == 0x18, "KLOCK_QUEUE_HANDLE size");
NDKSIM_STATIC_ASSERT(offsetof(KLOCK_QUEUE_HANDLE, OldIrql) == 0x10, "OldIrql offset");
#endif

#ifdef __cplusplus
}
#endif
