/* SPDX-License-Identifier: MIT */
/** \file
 * ndksim_kernel_exec.h - execution and synchronization support routines of the Windows kernel
 * for NDK consumer drivers: critical regions, clocks and delays, DPCs, timers, system threads and
 * the object references around them, rundown protection, push locks, executive resources,
 * interlocked singly linked lists (SLIST) and lookaside lists. Included by wdm.h; include wdm.h,
 * not this file.
 *
 * Names, values and x64 layouts are the WDK's. The simulation runs DPCs on one simulated DPC
 * thread at DISPATCH_LEVEL, fires timers from one timer thread, and times every wait, timer and
 * delay on one clock (src/kernel/clock.cpp). IRQL rules are checked at each call and reported as
 * ndksim_kernel.h describes. docs/kernel-runtime.md lists what differs from Windows.
 */
#pragma once

#ifndef NDKSIM_WDM_H_INCLUDED
#error "include wdm.h, which includes ndksim_kernel_exec.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Status values these routines return that the base header does not define (WDK values). */
#ifndef STATUS_OBJECT_TYPE_MISMATCH
#define STATUS_OBJECT_TYPE_MISMATCH NDKSIM_SCAST(NTSTATUS, 0xC0000024L)
#endif
#ifndef STATUS_INVALID_PARAMETER_5
#define STATUS_INVALID_PARAMETER_5 NDKSIM_SCAST(NTSTATUS, 0xC00000F3L)
#endif

/* ------------------------------------------------------------------------------------------ */
/* Critical regions                                                                            */
/* ------------------------------------------------------------------------------------------ */

/**
 * Disables normal kernel APC delivery for the calling thread (calls nest). The simulator
 * delivers no APCs; it counts the nesting per thread, because push locks and executive
 * resources require it. Rule: IRQL <= APC_LEVEL.
 */
NDKSIM_API VOID KeEnterCriticalRegion(void);

/**
 * Leaves the innermost critical region. Rules: IRQL <= APC_LEVEL; the thread must be inside a
 * critical region (leaving one it never entered is a violation and changes nothing).
 */
NDKSIM_API VOID KeLeaveCriticalRegion(void);

/** TRUE when the calling thread is inside a critical region or at IRQL >= APC_LEVEL. Any IRQL. */
NDKSIM_API BOOLEAN KeAreApcsDisabled(void);

/* ------------------------------------------------------------------------------------------ */
/* Clocks and delays                                                                           */
/* ------------------------------------------------------------------------------------------ */

/**
 * The performance counter: a monotonic count at *PerformanceFrequency ticks per second (the
 * simulator's frequency is 10 MHz, the value current Windows reports). PerformanceFrequency may
 * be NULL. Any IRQL.
 */
NDKSIM_API LARGE_INTEGER KeQueryPerformanceCounter(_Out_opt_ PLARGE_INTEGER PerformanceFrequency);

/** 100 ns units since the simulated boot (the first use of the kernel clock). Any IRQL. */
NDKSIM_API ULONGLONG KeQueryInterruptTime(void);

/** 100 ns units per clock tick: 156250 (15.625 ms), Windows' default timer resolution. */
NDKSIM_API ULONG KeQueryTimeIncrement(void);

/**
 * Clock ticks since the simulated boot (the interrupt time divided by KeQueryTimeIncrement).
 * Called by the KeQueryTickCount macro; not for direct use.
 */
NDKSIM_API ULONG64 ndksim_kernel_tick_count(void);

/**
 * Stores the tick count in *CurrentCount (a PLARGE_INTEGER). A macro, as in the x64 WDK, whose
 * version reads a count the kernel keeps in shared memory; the simulator computes it from the
 * interrupt time. Any IRQL.
 */
#define KeQueryTickCount(CurrentCount) \
    ((CurrentCount)->QuadPart = NDKSIM_SCAST(LONGLONG, ndksim_kernel_tick_count()))

/**
 * The current system time at the host clock's full precision: 100 ns units since 1601-01-01
 * UTC, on the same clock as KeQuerySystemTime. Any IRQL.
 */
NDKSIM_API VOID KeQuerySystemTimePrecise(_Out_ PLARGE_INTEGER CurrentTime);

/**
 * Puts the calling thread to sleep for *Interval: negative is relative, positive is an absolute
 * system time, both in 100 ns units, as KeWaitForSingleObject's timeout. Returns STATUS_SUCCESS
 * (no APCs are delivered, so never STATUS_ALERTED or STATUS_USER_APC). WaitMode and Alertable
 * are accepted and ignored. Rule: IRQL <= APC_LEVEL.
 */
NDKSIM_API NTSTATUS KeDelayExecutionThread(_In_ KPROCESSOR_MODE WaitMode, _In_ BOOLEAN Alertable,
                                           _In_ PLARGE_INTEGER Interval);

/**
 * Busy-waits at least MicroSeconds without giving up the processor. Any IRQL; Windows asks
 * for short stalls (at most 50 us), which the simulator does not enforce.
 */
NDKSIM_API VOID KeStallExecutionProcessor(_In_ ULONG MicroSeconds);

/* ------------------------------------------------------------------------------------------ */
/* Deferred procedure calls                                                                    */
/* ------------------------------------------------------------------------------------------ */

struct _KDPC;

/** A DPC routine: runs at DISPATCH_LEVEL with the arguments KeInsertQueueDpc stored. */
typedef VOID KDEFERRED_ROUTINE(_In_ struct _KDPC* Dpc, _In_opt_ PVOID DeferredContext,
                               _In_opt_ PVOID SystemArgument1, _In_opt_ PVOID SystemArgument2);
typedef KDEFERRED_ROUTINE* PKDEFERRED_ROUTINE;

/**
 * The x64 DPC object (0x40 bytes). DpcData is non-NULL while the DPC is queued, as on Windows;
 * the simulator keeps the queue itself outside the consumer's memory.
 */
typedef struct _KDPC {
    __extension__ union {
        ULONG TargetInfoAsUlong;
        __extension__ struct {
            UCHAR Type;
            UCHAR Importance;
            volatile USHORT Number;
        };
    };
    SINGLE_LIST_ENTRY DpcListEntry;
    KAFFINITY ProcessorHistory;
    PKDEFERRED_ROUTINE DeferredRoutine;
    PVOID DeferredContext;
    PVOID SystemArgument1;
    PVOID SystemArgument2;
    PVOID volatile DpcData;
} KDPC, *PKDPC, *PRKDPC;

typedef enum _KDPC_IMPORTANCE {
    LowImportance = 0,
    MediumImportance = 1,
    HighImportance = 2,
    MediumHighImportance = 3
} KDPC_IMPORTANCE;

/**
 * Formats Dpc to call DeferredRoutine with DeferredContext, with MediumImportance. Any IRQL.
 * Rule: the DPC must not be queued (re-initializing a queued DPC is a violation and leaves it
 * queued).
 */
NDKSIM_API VOID KeInitializeDpc(_Out_ PRKDPC Dpc, _In_ PKDEFERRED_ROUTINE DeferredRoutine,
                                _In_opt_ PVOID DeferredContext);

/**
 * Queues the DPC with the two system arguments and returns TRUE, or returns FALSE (storing
 * nothing) when it is already queued. The DPC thread runs queued DPCs in FIFO order at
 * DISPATCH_LEVEL; a HighImportance DPC goes to the front of the queue, as Windows does. Any
 * IRQL.
 */
NDKSIM_API BOOLEAN KeInsertQueueDpc(_Inout_ PRKDPC Dpc, _In_opt_ PVOID SystemArgument1,
                                    _In_opt_ PVOID SystemArgument2);

/** Removes a queued DPC and returns TRUE; FALSE when it was not queued. Any IRQL. */
NDKSIM_API BOOLEAN KeRemoveQueueDpc(_Inout_ PRKDPC Dpc);

/**
 * Returns once every DPC queued before the call has run to completion (DPCs queued during the
 * call are not waited for). Rule: IRQL == PASSIVE_LEVEL.
 */
NDKSIM_API VOID KeFlushQueuedDpcs(void);

/** Sets the DPC's importance (see KeInsertQueueDpc). Any IRQL. */
NDKSIM_API VOID KeSetImportanceDpc(_Inout_ PRKDPC Dpc, _In_ KDPC_IMPORTANCE Importance);

/**
 * Records the target processor in Dpc->Number. The simulator has one DPC queue, so the target
 * does not change where the DPC runs. Any IRQL.
 */
NDKSIM_API VOID KeSetTargetProcessorDpc(_Inout_ PRKDPC Dpc, _In_ CCHAR Number);

/* ------------------------------------------------------------------------------------------ */
/* Timers                                                                                      */
/* ------------------------------------------------------------------------------------------ */

typedef enum _TIMER_TYPE { NotificationTimer = 0, SynchronizationTimer = 1 } TIMER_TYPE;

/**
 * The x64 timer object (0x40 bytes), a dispatcher object: KeWaitFor* accept it. Header.Type is
 * 8 for a notification timer and 9 for a synchronization timer (Windows' object type numbers).
 * DueTime holds the expiry as an interrupt time (KeQueryInterruptTime units) while the timer is
 * set; the simulator keeps the set timers outside the consumer's memory.
 */
typedef struct _KTIMER {
    DISPATCHER_HEADER Header;
    ULARGE_INTEGER DueTime;
    LIST_ENTRY TimerListEntry;
    struct _KDPC* Dpc;
    ULONG Processor;
    ULONG Period; /**< milliseconds; 0 for a one-shot timer */
} KTIMER, *PKTIMER, *PRKTIMER;

/**
 * Formats a notification timer, not signaled and not set. Rule: IRQL <= DISPATCH_LEVEL; the
 * timer must not be set (re-initializing a set timer is a violation and cancels it first).
 */
NDKSIM_API VOID KeInitializeTimer(_Out_ PKTIMER Timer);

/** KeInitializeTimer with the timer's type: a synchronization timer releases one waiter. */
NDKSIM_API VOID KeInitializeTimerEx(_Out_ PKTIMER Timer, _In_ TIMER_TYPE Type);

/**
 * KeSetTimerEx without a period. Returns TRUE when the timer was already set (it is reset to
 * the new due time). Rule: IRQL <= DISPATCH_LEVEL.
 */
NDKSIM_API BOOLEAN KeSetTimer(_Inout_ PKTIMER Timer, _In_ LARGE_INTEGER DueTime,
                              _In_opt_ PKDPC Dpc);

/**
 * Sets the timer not signaled and arms it to expire at DueTime (negative: relative; positive:
 * absolute system time; 100 ns units) and then every Period milliseconds when Period is
 * nonzero. At each expiry the timer is signaled (waking its waiters; a synchronization timer
 * releases one) and Dpc, if given, is queued with the low and high halves of the expiry's
 * system time as its system arguments. Returns TRUE when the timer was already set. Rules:
 * IRQL <= DISPATCH_LEVEL; Period >= 0 (a negative period is a violation and the timer is not
 * set).
 */
NDKSIM_API BOOLEAN KeSetTimerEx(_Inout_ PKTIMER Timer, _In_ LARGE_INTEGER DueTime, _In_ LONG Period,
                                _In_opt_ PKDPC Dpc);

/**
 * Disarms the timer and returns TRUE if it was set; a DPC it already queued stays queued. Rule:
 * IRQL <= DISPATCH_LEVEL.
 */
NDKSIM_API BOOLEAN KeCancelTimer(_Inout_ PKTIMER Timer);

/** TRUE when the timer is signaled. Any IRQL. */
NDKSIM_API BOOLEAN KeReadStateTimer(_In_ PKTIMER Timer);

/* ------------------------------------------------------------------------------------------ */
/* Access rights, object attributes and object references                                      */
/* ------------------------------------------------------------------------------------------ */

typedef ULONG ACCESS_MASK;
typedef ACCESS_MASK* PACCESS_MASK;

#define DELETE 0x00010000L
#define READ_CONTROL 0x00020000L
#define WRITE_DAC 0x00040000L
#define WRITE_OWNER 0x00080000L
#define SYNCHRONIZE 0x00100000L
#define STANDARD_RIGHTS_REQUIRED 0x000F0000L
#define STANDARD_RIGHTS_ALL 0x001F0000L
#define GENERIC_READ 0x80000000L
#define GENERIC_WRITE 0x40000000L
#define GENERIC_EXECUTE 0x20000000L
#define GENERIC_ALL 0x10000000L
#define THREAD_ALL_ACCESS (STANDARD_RIGHTS_REQUIRED | SYNCHRONIZE | 0xFFFF)

#define OBJ_INHERIT 0x00000002L
#define OBJ_PERMANENT 0x00000010L
#define OBJ_EXCLUSIVE 0x00000020L
#define OBJ_CASE_INSENSITIVE 0x00000040L
#define OBJ_OPENIF 0x00000080L
#define OBJ_OPENLINK 0x00000100L
#define OBJ_KERNEL_HANDLE 0x00000200L
#define OBJ_FORCE_ACCESS_CHECK 0x00000400L
#define OBJ_VALID_ATTRIBUTES 0x000007F2L

/** The x64 object attributes (0x30 bytes). The simulator has no object namespace. */
typedef struct _OBJECT_ATTRIBUTES {
    ULONG Length;
    HANDLE RootDirectory;
    PUNICODE_STRING ObjectName;
    ULONG Attributes;
    PVOID SecurityDescriptor;
    PVOID SecurityQualityOfService;
} OBJECT_ATTRIBUTES, *POBJECT_ATTRIBUTES;
typedef const OBJECT_ATTRIBUTES* PCOBJECT_ATTRIBUTES;

/** Fills *p as the WDK macro does. */
#define InitializeObjectAttributes(p, n, a, r, s)                     \
    do {                                                              \
        (p)->Length = NDKSIM_SCAST(ULONG, sizeof(OBJECT_ATTRIBUTES)); \
        (p)->RootDirectory = (r);                                     \
        (p)->Attributes = (a);                                        \
        (p)->ObjectName = (n);                                        \
        (p)->SecurityDescriptor = (s);                                \
        (p)->SecurityQualityOfService = NULL;                         \
    } while (0)

typedef struct _CLIENT_ID {
    HANDLE UniqueProcess;
    HANDLE UniqueThread;
} CLIENT_ID, *PCLIENT_ID;

typedef struct _OBJECT_HANDLE_INFORMATION {
    ULONG HandleAttributes;
    ACCESS_MASK GrantedAccess;
} OBJECT_HANDLE_INFORMATION, *POBJECT_HANDLE_INFORMATION;

/** Opaque kernel objects. A thread object starts with a DISPATCHER_HEADER and is waitable. */
typedef struct _KTHREAD* PKTHREAD;
typedef struct _KTHREAD* PRKTHREAD;
typedef struct _ETHREAD* PETHREAD;
typedef struct _OBJECT_TYPE* POBJECT_TYPE;

/** The thread object type, for ObReferenceObjectByHandle's ObjectType (pass *PsThreadType). */
extern NDKSIM_API POBJECT_TYPE* PsThreadType;

/**
 * Takes a reference on the object a handle names and returns the object in *Object. Returns
 * STATUS_INVALID_HANDLE for a handle that is not open, and STATUS_OBJECT_TYPE_MISMATCH when
 * ObjectType is given and the object is of another type. DesiredAccess and AccessMode are not
 * checked (every kernel handle grants all access); *HandleInformation, if given, reports the
 * access the handle was opened with. Rule: IRQL == PASSIVE_LEVEL.
 */
NDKSIM_API NTSTATUS ObReferenceObjectByHandle(
    _In_ HANDLE Handle, _In_ ACCESS_MASK DesiredAccess, _In_opt_ POBJECT_TYPE ObjectType,
    _In_ KPROCESSOR_MODE AccessMode, _Out_ PVOID* Object,
    _Out_opt_ POBJECT_HANDLE_INFORMATION HandleInformation);

/**
 * Adds a reference to a kernel object the simulator created (a thread object) and returns the
 * new count. Rules: IRQL <= DISPATCH_LEVEL; Object is such an object with a reference (a
 * violation otherwise).
 */
NDKSIM_API LONG_PTR ObfReferenceObject(_In_ PVOID Object);

/**
 * Drops a reference and returns the new count; the object is freed when it reaches zero (a
 * thread object also needs its thread to have ended). Rules: IRQL <= DISPATCH_LEVEL; Object holds
 * a reference (a violation otherwise).
 */
NDKSIM_API LONG_PTR ObfDereferenceObject(_In_ PVOID Object);

#define ObReferenceObject(Object) ObfReferenceObject(Object)
#define ObDereferenceObject(Object) ObfDereferenceObject(Object)

/**
 * Closes a handle, dropping its reference on the object. Returns STATUS_SUCCESS, or
 * STATUS_INVALID_HANDLE (and reports a violation: a kernel-mode caller closing a bad handle
 * bug-checks on Windows). Rule: IRQL == PASSIVE_LEVEL.
 */
NDKSIM_API NTSTATUS ZwClose(_In_ HANDLE Handle);

/* ------------------------------------------------------------------------------------------ */
/* System threads                                                                              */
/* ------------------------------------------------------------------------------------------ */

/** A system thread's start routine; it runs at PASSIVE_LEVEL. */
typedef VOID KSTART_ROUTINE(_In_ PVOID StartContext);
typedef KSTART_ROUTINE* PKSTART_ROUTINE;

/**
 * Starts a system thread that runs StartRoutine(StartContext) at PASSIVE_LEVEL, and returns a
 * kernel handle to its thread object in *ThreadHandle (close it with ZwClose) and, if ClientId
 * is given, the simulated process and thread ids. The thread object is signaled when the thread
 * ends: StartRoutine returns or calls PsTerminateSystemThread. ObjectAttributes and
 * ProcessHandle (NULL: the system process) are accepted and not interpreted. Returns
 * STATUS_SUCCESS or STATUS_INSUFFICIENT_RESOURCES. Rules: IRQL == PASSIVE_LEVEL; the routine must
 * end at PASSIVE_LEVEL outside any critical region (a violation otherwise).
 */
NDKSIM_API NTSTATUS PsCreateSystemThread(_Out_ PHANDLE ThreadHandle, _In_ ULONG DesiredAccess,
                                         _In_opt_ POBJECT_ATTRIBUTES ObjectAttributes,
                                         _In_opt_ HANDLE ProcessHandle,
                                         _Out_opt_ PCLIENT_ID ClientId,
                                         _In_ PKSTART_ROUTINE StartRoutine,
                                         _In_opt_ PVOID StartContext);

/**
 * Ends the calling system thread with ExitStatus; does not return. The simulator leaves the
 * start routine's frames with longjmp to the point where it called the routine, so, as on
 * Windows, nothing on those frames is cleaned up (no C++ destructors run). Rules: IRQL ==
 * PASSIVE_LEVEL; the caller is a thread PsCreateSystemThread started (otherwise a violation,
 * and the call returns STATUS_INVALID_PARAMETER).
 */
NDKSIM_API NTSTATUS PsTerminateSystemThread(_In_ NTSTATUS ExitStatus);

/**
 * The calling thread's thread object (no reference is added). Threads the simulator did not
 * start get one on first use, signaled when the thread exits. Any IRQL.
 */
NDKSIM_API PETHREAD PsGetCurrentThread(void);

/** The same object as PsGetCurrentThread, typed as a KTHREAD. Any IRQL. */
NDKSIM_API PKTHREAD KeGetCurrentThread(void);

/** The calling thread's simulated id (the UniqueThread of its CLIENT_ID). Any IRQL. */
NDKSIM_API HANDLE PsGetCurrentThreadId(void);

/* ------------------------------------------------------------------------------------------ */
/* Rundown protection                                                                          */
/* ------------------------------------------------------------------------------------------ */

/**
 * The x64 rundown reference (8 bytes), encoded as Windows does while no one waits: bit 0
 * (EX_RUNDOWN_ACTIVE) is set once rundown has begun, and the rest counts acquisitions in steps
 * of EX_RUNDOWN_COUNT_INC. Windows replaces the count with a wait block pointer while a waiter
 * sleeps; the simulator keeps the count and parks waiters outside the consumer's memory.
 */
typedef struct _EX_RUNDOWN_REF {
    union {
        volatile ULONG_PTR Count;
        volatile PVOID Ptr;
    };
} EX_RUNDOWN_REF, *PEX_RUNDOWN_REF;

#define EX_RUNDOWN_ACTIVE 0x1
#define EX_RUNDOWN_COUNT_SHIFT 0x1
#define EX_RUNDOWN_COUNT_INC (1 << EX_RUNDOWN_COUNT_SHIFT)

/** Makes the reference usable: no acquisitions, rundown not begun. Any IRQL. */
NDKSIM_API VOID ExInitializeRundownProtection(_Out_ PEX_RUNDOWN_REF RunRef);

/**
 * Takes one acquisition and returns TRUE, or returns FALSE once rundown has begun. Rule: IRQL
 * <= DISPATCH_LEVEL.
 */
NDKSIM_API BOOLEAN ExAcquireRundownProtection(_Inout_ PEX_RUNDOWN_REF RunRef);

/** ExAcquireRundownProtection for Count acquisitions at once (all or none). Same rule. */
NDKSIM_API BOOLEAN ExAcquireRundownProtectionEx(_Inout_ PEX_RUNDOWN_REF RunRef, _In_ ULONG Count);

/**
 * Drops one acquisition; the last one after rundown began wakes the waiter. Rules: IRQL <=
 * DISPATCH_LEVEL; an acquisition is held (releasing more than was acquired is a violation and
 * changes nothing).
 */
NDKSIM_API VOID ExReleaseRundownProtection(_Inout_ PEX_RUNDOWN_REF RunRef);

/** ExReleaseRundownProtection for Count acquisitions. Same rules. */
NDKSIM_API VOID ExReleaseRundownProtectionEx(_Inout_ PEX_RUNDOWN_REF RunRef, _In_ ULONG Count);

/**
 * Begins rundown (later acquisitions fail) and waits until every acquisition is released. Rule:
 * IRQL <= APC_LEVEL.
 */
NDKSIM_API VOID ExWaitForRundownProtectionRelease(_Inout_ PEX_RUNDOWN_REF RunRef);

/**
 * Marks the rundown finished (acquisitions keep failing). Rules: IRQL <= DISPATCH_LEVEL; rundown
 * has begun and no acquisition is held (a violation otherwise).
 */
NDKSIM_API VOID ExRundownCompleted(_Out_ PEX_RUNDOWN_REF RunRef);

/**
 * Makes a run-down reference usable again. Rules: IRQL <= DISPATCH_LEVEL; rundown has completed
 * (re-initializing a reference that still has acquisitions is a violation).
 */
NDKSIM_API VOID ExReInitializeRundownProtection(_Inout_ PEX_RUNDOWN_REF RunRef);

/* ------------------------------------------------------------------------------------------ */
/* Push locks                                                                                  */
/* ------------------------------------------------------------------------------------------ */

/**
 * A push lock (8 bytes, opaque to drivers). The simulator keeps the whole state in the word:
 * 0 is free, an even value is twice the number of shared owners, an odd value is the exclusive
 * owner's thread token with bit 0 set. Waiters sleep outside the consumer's memory.
 */
typedef ULONG_PTR EX_PUSH_LOCK;
typedef EX_PUSH_LOCK* PEX_PUSH_LOCK;

#define EX_DEFAULT_PUSH_LOCK_FLAGS 0

/** Makes the push lock free. Any IRQL. */
NDKSIM_API VOID ExInitializePushLock(_Out_ PEX_PUSH_LOCK PushLock);

/**
 * Acquires the push lock exclusively, waiting while anyone owns it. Flags are accepted and
 * ignored. Rules: IRQL <= APC_LEVEL, and inside a critical region unless at APC_LEVEL (normal
 * kernel APCs disabled); not already owned by the caller (push locks are not recursive: Windows
 * hangs; the simulator reports it and returns without acquiring).
 */
NDKSIM_API VOID ExAcquirePushLockExclusiveEx(_Inout_ PEX_PUSH_LOCK PushLock, _In_ ULONG Flags);

/**
 * Acquires the push lock shared, waiting while it is owned exclusively (readers are not held
 * back by waiting writers in the simulator). Rules as for the exclusive form, except that a
 * recursive shared acquire is not detected.
 */
NDKSIM_API VOID ExAcquirePushLockSharedEx(_Inout_ PEX_PUSH_LOCK PushLock, _In_ ULONG Flags);

/** Releases an exclusive acquisition. Rules: the caller owns it exclusively; IRQL <= APC_LEVEL. */
NDKSIM_API VOID ExReleasePushLockExclusiveEx(_Inout_ PEX_PUSH_LOCK PushLock, _In_ ULONG Flags);

/** Releases a shared acquisition. Rules: the lock is held shared; IRQL <= APC_LEVEL. */
NDKSIM_API VOID ExReleasePushLockSharedEx(_Inout_ PEX_PUSH_LOCK PushLock, _In_ ULONG Flags);

#define ExAcquirePushLockExclusive(Lock) \
    ExAcquirePushLockExclusiveEx(Lock, EX_DEFAULT_PUSH_LOCK_FLAGS)
#define ExAcquirePushLockShared(Lock) ExAcquirePushLockSharedEx(Lock, EX_DEFAULT_PUSH_LOCK_FLAGS)
#define ExReleasePushLockExclusive(Lock) \
    ExReleasePushLockExclusiveEx(Lock, EX_DEFAULT_PUSH_LOCK_FLAGS)
#define ExReleasePushLockShared(Lock) ExReleasePushLockSharedEx(Lock, EX_DEFAULT_PUSH_LOCK_FLAGS)

/* ------------------------------------------------------------------------------------------ */
/* Executive resources                                                                         */
/* ------------------------------------------------------------------------------------------ */

typedef ULONG_PTR ERESOURCE_THREAD;
typedef ERESOURCE_THREAD* PERESOURCE_THREAD;

typedef struct _OWNER_ENTRY {
    ERESOURCE_THREAD OwnerThread;
    __extension__ union {
        __extension__ struct {
            ULONG IoPriorityBoosted : 1;
            ULONG OwnerReferenced : 1;
            ULONG IoQoSPriorityBoosted : 1;
            ULONG OwnerCount : 29;
        };
        ULONG TableSize;
    };
} OWNER_ENTRY, *POWNER_ENTRY;

/**
 * The x64 executive resource (0x68 bytes). Its owners and waiters need more state than the
 * structure has room for, so the simulator keeps them in a table keyed by the resource's
 * address from ExInitializeResourceLite to ExDeleteResourceLite, and leaves these fields zero.
 */
typedef struct _ERESOURCE {
    LIST_ENTRY SystemResourcesList;
    POWNER_ENTRY OwnerTable;
    SHORT ActiveCount;
    USHORT Flag;
    PVOID volatile SharedWaiters;
    PVOID volatile ExclusiveWaiters;
    OWNER_ENTRY OwnerEntry;
    ULONG ActiveEntries;
    ULONG ContentionCount;
    ULONG NumberOfSharedWaiters;
    ULONG NumberOfExclusiveWaiters;
    PVOID Reserved2;
    union {
        PVOID Address;
        ULONG_PTR CreatorBackTraceIndex;
    };
    KSPIN_LOCK SpinLock;
} ERESOURCE, *PERESOURCE;

/**
 * Makes the resource usable (unowned) and returns STATUS_SUCCESS. Rule: IRQL <= DISPATCH_LEVEL;
 * initializing a resource that is already initialized and not deleted is a violation.
 */
NDKSIM_API NTSTATUS ExInitializeResourceLite(_Out_ PERESOURCE Resource);

/**
 * Removes the resource from the simulator's table and returns STATUS_SUCCESS. Rules: IRQL <=
 * DISPATCH_LEVEL (APC_LEVEL and below in the docs' examples; the simulator accepts DISPATCH);
 * the resource is initialized and unowned (a violation otherwise). A resource never deleted is
 * reported by the leak report.
 */
NDKSIM_API NTSTATUS ExDeleteResourceLite(_Inout_ PERESOURCE Resource);

/**
 * Acquires the resource exclusively and returns TRUE; with Wait FALSE returns FALSE instead of
 * waiting when another thread owns it. The exclusive owner may acquire again (exclusive or
 * shared); each acquisition needs its release. A thread that holds it only shared must not ask
 * for exclusive access (Windows deadlocks; the simulator reports it and returns FALSE). Rules:
 * IRQL <= APC_LEVEL, and inside a critical region unless at APC_LEVEL.
 */
NDKSIM_API BOOLEAN ExAcquireResourceExclusiveLite(_Inout_ PERESOURCE Resource, _In_ BOOLEAN Wait);

/**
 * Acquires the resource shared and returns TRUE; waits (or with Wait FALSE returns FALSE) while
 * another thread owns it exclusively. Shared owners may acquire again. Waiting exclusive
 * acquirers do not hold back new shared owners. Rules as for the exclusive form.
 */
NDKSIM_API BOOLEAN ExAcquireResourceSharedLite(_Inout_ PERESOURCE Resource, _In_ BOOLEAN Wait);

/**
 * Releases one acquisition by the calling thread. Rules: IRQL <= DISPATCH_LEVEL; the caller owns
 * the resource (a violation otherwise).
 */
NDKSIM_API VOID ExReleaseResourceLite(_Inout_ PERESOURCE Resource);

/** TRUE when the calling thread owns the resource exclusively. Rule: IRQL <= DISPATCH_LEVEL. */
NDKSIM_API BOOLEAN ExIsResourceAcquiredExclusiveLite(_In_ PERESOURCE Resource);

/**
 * How many acquisitions (shared or exclusive) the calling thread holds; 0 when none. Rule: IRQL
 * <= DISPATCH_LEVEL.
 */
NDKSIM_API ULONG ExIsResourceAcquiredSharedLite(_In_ PERESOURCE Resource);

/** ExReleaseResourceLite, naming the releasing thread (it must be the caller's). */
NDKSIM_API VOID ExReleaseResourceForThreadLite(_Inout_ PERESOURCE Resource,
                                               _In_ ERESOURCE_THREAD ResourceThreadId);

/** The caller's thread as an ERESOURCE_THREAD, for ExReleaseResourceForThreadLite. */
#define ExGetCurrentResourceThread() NDKSIM_RCAST(ERESOURCE_THREAD, PsGetCurrentThread())

/**
 * Resources initialized and not deleted (for leak checks); ndksim_kernel_leak_report counts
 * them.
 */
NDKSIM_API SIZE_T ndksim_kernel_resources_live(void);

/* ------------------------------------------------------------------------------------------ */
/* Interlocked singly linked lists (SLIST)                                                     */
/* ------------------------------------------------------------------------------------------ */

/** An SLIST entry: 16-byte aligned on x64, as Windows requires of every entry. */
typedef struct __attribute__((aligned(16))) _SLIST_ENTRY {
    struct _SLIST_ENTRY* Next;
} SLIST_ENTRY, *PSLIST_ENTRY;

/**
 * The x64 SLIST header (16 bytes, 16-byte aligned), encoded as Windows' HeaderX64 form: Depth,
 * a Sequence bumped by every change, and NextEntry, the first entry's address shifted right by
 * 4. The simulator updates it under a lock striped by header address instead of a 16-byte
 * compare-exchange, so read it only through the routines below.
 */
typedef union __attribute__((aligned(16))) _SLIST_HEADER {
    __extension__ struct {
        ULONGLONG Alignment;
        ULONGLONG Region;
    };
    __extension__ struct {
        ULONGLONG Depth : 16;
        ULONGLONG Sequence : 48;
        ULONGLONG HeaderType : 1;
        ULONGLONG Reserved : 3;
        ULONGLONG NextEntry : 60;
    } HeaderX64;
} SLIST_HEADER, *PSLIST_HEADER;

/** Makes the list empty. Any IRQL. */
NDKSIM_API VOID InitializeSListHead(_Out_ PSLIST_HEADER SListHead);

/**
 * Pushes Entry and returns the previous first entry (NULL when the list was empty). Rules: any
 * IRQL; Entry is 16-byte aligned (a violation otherwise; nothing is pushed).
 */
NDKSIM_API PSLIST_ENTRY InterlockedPushEntrySList(_Inout_ PSLIST_HEADER ListHead,
                                                  _Inout_ PSLIST_ENTRY ListEntry);

/** Pops and returns the first entry, or NULL when the list is empty. Any IRQL. */
NDKSIM_API PSLIST_ENTRY InterlockedPopEntrySList(_Inout_ PSLIST_HEADER ListHead);

/** Empties the list and returns its former first entry (the chain stays linked). Any IRQL. */
NDKSIM_API PSLIST_ENTRY InterlockedFlushSList(_Inout_ PSLIST_HEADER ListHead);

/** The number of entries. Any IRQL. */
NDKSIM_API USHORT QueryDepthSList(_In_ PSLIST_HEADER SListHead);

/** The first entry without removing it, or NULL. Any IRQL. */
NDKSIM_API PSLIST_ENTRY FirstEntrySList(_In_ PSLIST_HEADER SListHead);

/** The x64 WDK forms that take a spin lock ignore it; so do these. */
#define ExInterlockedPushEntrySList(Head, Entry, Lock) InterlockedPushEntrySList(Head, Entry)
#define ExInterlockedPopEntrySList(Head, Lock) InterlockedPopEntrySList(Head)
#define ExInterlockedFlushSList(Head) InterlockedFlushSList(Head)
#define ExQueryDepthSList(Head) QueryDepthSList(Head)

///@{
/**
 * LIST_ENTRY operations under a spin lock, callable at any IRQL: each takes Lock (raising to at
 * least DISPATCH_LEVEL while it is held, where Windows also disables interrupts), links or
 * unlinks, and releases it. Insert returns the former first (Head) or last (Tail) entry, NULL
 * when the list was empty; Remove returns the removed first entry, NULL when the list is empty.
 * Rule: Lock is used only with these routines (and with no other lock routine) while the list
 * lives.
 */
NDKSIM_API PLIST_ENTRY ExInterlockedInsertHeadList(_Inout_ PLIST_ENTRY ListHead,
                                                   _Inout_ PLIST_ENTRY ListEntry,
                                                   _Inout_ PKSPIN_LOCK Lock);
NDKSIM_API PLIST_ENTRY ExInterlockedInsertTailList(_Inout_ PLIST_ENTRY ListHead,
                                                   _Inout_ PLIST_ENTRY ListEntry,
                                                   _Inout_ PKSPIN_LOCK Lock);
NDKSIM_API PLIST_ENTRY ExInterlockedRemoveHeadList(_Inout_ PLIST_ENTRY ListHead,
                                                   _Inout_ PKSPIN_LOCK Lock);
///@}

/* ------------------------------------------------------------------------------------------ */
/* Lookaside lists                                                                             */
/* ------------------------------------------------------------------------------------------ */

struct _LOOKASIDE_LIST_EX;

typedef PVOID ALLOCATE_FUNCTION(_In_ POOL_TYPE PoolType, _In_ SIZE_T NumberOfBytes, _In_ ULONG Tag);
typedef ALLOCATE_FUNCTION* PALLOCATE_FUNCTION;
typedef VOID FREE_FUNCTION(_In_ PVOID Buffer);
typedef FREE_FUNCTION* PFREE_FUNCTION;
typedef PVOID ALLOCATE_FUNCTION_EX(_In_ POOL_TYPE PoolType, _In_ SIZE_T NumberOfBytes,
                                   _In_ ULONG Tag, _Inout_ struct _LOOKASIDE_LIST_EX* Lookaside);
typedef ALLOCATE_FUNCTION_EX* PALLOCATE_FUNCTION_EX;
typedef VOID FREE_FUNCTION_EX(_In_ PVOID Buffer, _Inout_ struct _LOOKASIDE_LIST_EX* Lookaside);
typedef FREE_FUNCTION_EX* PFREE_FUNCTION_EX;

/**
 * The fields every x64 lookaside list has (0x60 bytes): the cached free blocks (ListHead),
 * Depth (how many it keeps; the simulator fixes it at MaximumDepth), counters, and the pool
 * type, tag, block size and allocate/free routines.
 */
#define NDKSIM_GENERAL_LOOKASIDE_LAYOUT   \
    union {                               \
        SLIST_HEADER ListHead;            \
        SINGLE_LIST_ENTRY SingleListHead; \
    };                                    \
    USHORT Depth;                         \
    USHORT MaximumDepth;                  \
    ULONG TotalAllocates;                 \
    union {                               \
        ULONG AllocateMisses;             \
        ULONG AllocateHits;               \
    };                                    \
    ULONG TotalFrees;                     \
    union {                               \
        ULONG FreeMisses;                 \
        ULONG FreeHits;                   \
    };                                    \
    POOL_TYPE Type;                       \
    ULONG Tag;                            \
    ULONG Size;                           \
    union {                               \
        PALLOCATE_FUNCTION_EX AllocateEx; \
        PALLOCATE_FUNCTION Allocate;      \
    };                                    \
    union {                               \
        PFREE_FUNCTION_EX FreeEx;         \
        PFREE_FUNCTION Free;              \
    };                                    \
    LIST_ENTRY ListEntry;                 \
    ULONG LastTotalAllocates;             \
    union {                               \
        ULONG LastAllocateMisses;         \
        ULONG LastAllocateHits;           \
    };                                    \
    ULONG Future[2];

/** Cache-aligned (64 bytes) on x64, as in the WDK: 0x80 bytes. */
typedef struct __attribute__((aligned(64))) _GENERAL_LOOKASIDE {
    NDKSIM_GENERAL_LOOKASIDE_LAYOUT
} GENERAL_LOOKASIDE, *PGENERAL_LOOKASIDE;

typedef struct _GENERAL_LOOKASIDE_POOL {
    NDKSIM_GENERAL_LOOKASIDE_LAYOUT
} GENERAL_LOOKASIDE_POOL, *PGENERAL_LOOKASIDE_POOL;

typedef struct _PAGED_LOOKASIDE_LIST {
    GENERAL_LOOKASIDE L;
} PAGED_LOOKASIDE_LIST, *PPAGED_LOOKASIDE_LIST;

typedef struct __attribute__((aligned(64))) _NPAGED_LOOKASIDE_LIST {
    GENERAL_LOOKASIDE L;
} NPAGED_LOOKASIDE_LIST, *PNPAGED_LOOKASIDE_LIST;

typedef struct _LOOKASIDE_LIST_EX {
    GENERAL_LOOKASIDE_POOL L;
} LOOKASIDE_LIST_EX, *PLOOKASIDE_LIST_EX;

/** The smallest block a lookaside list hands out: room for the SLIST link. */
#define LOOKASIDE_MINIMUM_BLOCK_SIZE (RTL_SIZEOF_THROUGH_FIELD(SLIST_ENTRY, Next))

#define EX_LOOKASIDE_LIST_EX_FLAGS_RAISE_ON_FAIL 0x00000001UL
#define EX_LOOKASIDE_LIST_EX_FLAGS_FAIL_NO_RAISE 0x00000002UL
#define EX_MAXIMUM_LOOKASIDE_DEPTH_BASE 256
#define EX_MAXIMUM_LOOKASIDE_DEPTH_LIMIT 1024

/**
 * Formats a nonpaged lookaside list of Size-byte blocks with pool Tag. Blocks come from the
 * tracked pool (NonPagedPoolNx unless Allocate is given) and freed blocks are kept, up to the
 * list's depth, for reuse; Allocate and Free replace the pool routines. Flags are accepted and
 * ignored; Depth is unused, as on Windows (the simulator keeps up to 256 blocks). Rule: IRQL <=
 * DISPATCH_LEVEL.
 */
NDKSIM_API VOID ExInitializeNPagedLookasideList(_Out_ PNPAGED_LOOKASIDE_LIST Lookaside,
                                                _In_opt_ PALLOCATE_FUNCTION Allocate,
                                                _In_opt_ PFREE_FUNCTION Free, _In_ ULONG Flags,
                                                _In_ SIZE_T Size, _In_ ULONG Tag,
                                                _In_ USHORT Depth);

/** Frees every cached block and unformats the list. Rule: IRQL <= DISPATCH_LEVEL. */
NDKSIM_API VOID ExDeleteNPagedLookasideList(_Inout_ PNPAGED_LOOKASIDE_LIST Lookaside);

/**
 * A cached block, or a new one from the allocate routine (NULL when that fails). Rule: IRQL <=
 * DISPATCH_LEVEL.
 */
NDKSIM_API PVOID ExAllocateFromNPagedLookasideList(_Inout_ PNPAGED_LOOKASIDE_LIST Lookaside);

/** Caches the block, or frees it when the list is full. Rule: IRQL <= DISPATCH_LEVEL. */
NDKSIM_API VOID ExFreeToNPagedLookasideList(_Inout_ PNPAGED_LOOKASIDE_LIST Lookaside,
                                            _In_ PVOID Entry);

///@{
/** The paged forms: as above with PagedPool blocks. Rule: IRQL <= APC_LEVEL. */
NDKSIM_API VOID ExInitializePagedLookasideList(_Out_ PPAGED_LOOKASIDE_LIST Lookaside,
                                               _In_opt_ PALLOCATE_FUNCTION Allocate,
                                               _In_opt_ PFREE_FUNCTION Free, _In_ ULONG Flags,
                                               _In_ SIZE_T Size, _In_ ULONG Tag, _In_ USHORT Depth);
NDKSIM_API VOID ExDeletePagedLookasideList(_Inout_ PPAGED_LOOKASIDE_LIST Lookaside);
NDKSIM_API PVOID ExAllocateFromPagedLookasideList(_Inout_ PPAGED_LOOKASIDE_LIST Lookaside);
NDKSIM_API VOID ExFreeToPagedLookasideList(_Inout_ PPAGED_LOOKASIDE_LIST Lookaside,
                                           _In_ PVOID Entry);
///@}

/**
 * Formats an extended lookaside list of Size-byte blocks of PoolType with Tag (sizes below
 * LOOKASIDE_MINIMUM_BLOCK_SIZE are rounded up). Returns STATUS_SUCCESS, or
 * STATUS_INVALID_PARAMETER_5 when Flags has a bit other than the two
 * EX_LOOKASIDE_LIST_EX_FLAGS_ values or has both. Depth is unused. Rule: IRQL <= DISPATCH_LEVEL
 * (<= APC_LEVEL for a paged PoolType).
 */
NDKSIM_API NTSTATUS ExInitializeLookasideListEx(_Out_ PLOOKASIDE_LIST_EX Lookaside,
                                                _In_opt_ PALLOCATE_FUNCTION_EX Allocate,
                                                _In_opt_ PFREE_FUNCTION_EX Free,
                                                _In_ POOL_TYPE PoolType, _In_ ULONG Flags,
                                                _In_ SIZE_T Size, _In_ ULONG Tag,
                                                _In_ USHORT Depth);

/** Frees every cached block. Rule: IRQL <= DISPATCH_LEVEL (<= APC_LEVEL for paged pool). */
NDKSIM_API VOID ExDeleteLookasideListEx(_Inout_ PLOOKASIDE_LIST_EX Lookaside);

/** A cached or new block (NULL when allocation fails). Rule as for the list's pool type. */
NDKSIM_API PVOID ExAllocateFromLookasideListEx(_Inout_ PLOOKASIDE_LIST_EX Lookaside);

/** Caches or frees the block. Rule as for the list's pool type. */
NDKSIM_API VOID ExFreeToLookasideListEx(_Inout_ PLOOKASIDE_LIST_EX Lookaside, _In_ PVOID Entry);

/* ------------------------------------------------------------------------------------------ */
/* Layout checks (WDK x64 sizes)                                                               */
/* ------------------------------------------------------------------------------------------ */

#if NDKSIM_ABI_LAYOUT_CHECKS
NDKSIM_STATIC_ASSERT(sizeof(KDPC) == 0x40, "KDPC size");
NDKSIM_STATIC_ASSERT(offsetof(KDPC, DpcListEntry) == 0x08, "KDPC.DpcListEntry offset");
NDKSIM_STATIC_ASSERT(offsetof(KDPC, DeferredRoutine) == 0x18, "KDPC.DeferredRoutine offset");
NDKSIM_STATIC_ASSERT(offsetof(KDPC, SystemArgument1) == 0x28, "KDPC.SystemArgument1 offset");
NDKSIM_STATIC_ASSERT(offsetof(KDPC, DpcData) == 0x38, "KDPC.DpcData offset");
NDKSIM_STATIC_ASSERT(sizeof(KTIMER) == 0x40, "KTIMER size");
NDKSIM_STATIC_ASSERT(offsetof(KTIMER, DueTime) == 0x18, "KTIMER.DueTime offset");
NDKSIM_STATIC_ASSERT(offsetof(KTIMER, Dpc) == 0x30, "KTIMER.Dpc offset");
NDKSIM_STATIC_ASSERT(offsetof(KTIMER, Period) == 0x3C, "KTIMER.Period offset");
NDKSIM_STATIC_ASSERT(sizeof(OBJECT_ATTRIBUTES) == 0x30, "OBJECT_ATTRIBUTES size");
NDKSIM_STATIC_ASSERT(offsetof(OBJECT_ATTRIBUTES, Attributes) == 0x18, "Attributes offset");
NDKSIM_STATIC_ASSERT(sizeof(CLIENT_ID) == 0x10, "CLIENT_ID size");
NDKSIM_STATIC_ASSERT(sizeof(EX_RUNDOWN_REF) == 0x08, "EX_RUNDOWN_REF size");
NDKSIM_STATIC_ASSERT(sizeof(EX_PUSH_LOCK) == 0x08, "EX_PUSH_LOCK size");
NDKSIM_STATIC_ASSERT(sizeof(OWNER_ENTRY) == 0x10, "OWNER_ENTRY size");
NDKSIM_STATIC_ASSERT(sizeof(ERESOURCE) == 0x68, "ERESOURCE size");
NDKSIM_STATIC_ASSERT(offsetof(ERESOURCE, OwnerEntry) == 0x30, "ERESOURCE.OwnerEntry offset");
NDKSIM_STATIC_ASSERT(offsetof(ERESOURCE, SpinLock) == 0x60, "ERESOURCE.SpinLock offset");
NDKSIM_STATIC_ASSERT(sizeof(SLIST_ENTRY) == 0x10, "SLIST_ENTRY size");
NDKSIM_STATIC_ASSERT(NDKSIM_ALIGNOF(SLIST_ENTRY) == 16, "SLIST_ENTRY alignment");
NDKSIM_STATIC_ASSERT(sizeof(SLIST_HEADER) == 0x10, "SLIST_HEADER size");
NDKSIM_STATIC_ASSERT(NDKSIM_ALIGNOF(SLIST_HEADER) == 16, "SLIST_HEADER alignment");
NDKSIM_STATIC_ASSERT(sizeof(GENERAL_LOOKASIDE_POOL) == 0x60, "GENERAL_LOOKASIDE_POOL size");
NDKSIM_STATIC_ASSERT(offsetof(GENERAL_LOOKASIDE_POOL, Depth) == 0x10, "lookaside Depth offset");
NDKSIM_STATIC_ASSERT(offsetof(GENERAL_LOOKASIDE_POOL, Type) == 0x24, "lookaside Type offset");
NDKSIM_STATIC_ASSERT(offsetof(GENERAL_LOOKASIDE_POOL, Tag) == 0x28, "lookaside Tag offset");
NDKSIM_STATIC_ASSERT(offsetof(GENERAL_LOOKASIDE_POOL, Allocate) == 0x30, "Allocate offset");
NDKSIM_STATIC_ASSERT(offsetof(GENERAL_LOOKASIDE_POOL, ListEntry) == 0x40, "ListEntry offset");
NDKSIM_STATIC_ASSERT(offsetof(GENERAL_LOOKASIDE_POOL, Future) == 0x58, "Future offset");
NDKSIM_STATIC_ASSERT(sizeof(GENERAL_LOOKASIDE) == 0x80, "GENERAL_LOOKASIDE size");
NDKSIM_STATIC_ASSERT(sizeof(NPAGED_LOOKASIDE_LIST) == 0x80, "NPAGED_LOOKASIDE_LIST size");
NDKSIM_STATIC_ASSERT(sizeof(PAGED_LOOKASIDE_LIST) == 0x80, "PAGED_LOOKASIDE_LIST size");
NDKSIM_STATIC_ASSERT(sizeof(LOOKASIDE_LIST_EX) == 0x60, "LOOKASIDE_LIST_EX size");
#endif

#ifdef __cplusplus
}
#endif
