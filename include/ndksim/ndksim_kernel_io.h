/* SPDX-License-Identifier: MIT */
/** \file
 * ndksim_kernel_io.h - the I/O manager side of the Windows kernel that NDK consumer drivers use:
 * driver and device objects, IRPs with their stack locations and completion routines, I/O work
 * items, and the simulator's driver life cycle (load a driver through its DriverEntry, unload it,
 * report what it leaked). Included by wdm.h; include wdm.h, not this file.
 *
 * Names, values and x64 layouts are the WDK's. There is no object namespace and no PnP manager:
 * a driver is loaded by ndksim_kernel_load_driver (or ndksim::testkit::driver_host), and its
 * device objects exist only for the driver's own use (work items, IRP routing, extensions).
 */
#pragma once

#ifndef NDKSIM_WDM_H_INCLUDED
#error "include wdm.h, which includes ndksim_kernel_io.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifndef STATUS_MORE_PROCESSING_REQUIRED
#define STATUS_MORE_PROCESSING_REQUIRED NDKSIM_SCAST(NTSTATUS, 0xC0000016L)
#endif
#ifndef STATUS_OBJECT_NAME_COLLISION
#define STATUS_OBJECT_NAME_COLLISION NDKSIM_SCAST(NTSTATUS, 0xC0000035L)
#endif

/* ------------------------------------------------------------------------------------------ */
/* Object types and constants                                                                  */
/* ------------------------------------------------------------------------------------------ */

/** The Type field of I/O manager objects (WDK values). */
#define IO_TYPE_ADAPTER 1
#define IO_TYPE_CONTROLLER 2
#define IO_TYPE_DEVICE 3
#define IO_TYPE_DRIVER 4
#define IO_TYPE_FILE 5
#define IO_TYPE_IRP 6
#define IO_TYPE_DEVICE_OBJECT_EXTENSION 13

/** Major function codes. */
#define IRP_MJ_CREATE 0x00
#define IRP_MJ_CREATE_NAMED_PIPE 0x01
#define IRP_MJ_CLOSE 0x02
#define IRP_MJ_READ 0x03
#define IRP_MJ_WRITE 0x04
#define IRP_MJ_QUERY_INFORMATION 0x05
#define IRP_MJ_SET_INFORMATION 0x06
#define IRP_MJ_FLUSH_BUFFERS 0x09
#define IRP_MJ_DEVICE_CONTROL 0x0e
#define IRP_MJ_INTERNAL_DEVICE_CONTROL 0x0f
#define IRP_MJ_SHUTDOWN 0x10
#define IRP_MJ_CLEANUP 0x12
#define IRP_MJ_POWER 0x16
#define IRP_MJ_SYSTEM_CONTROL 0x17
#define IRP_MJ_PNP 0x1b
#define IRP_MJ_MAXIMUM_FUNCTION 0x1b

/** Device types and characteristics used by network drivers. */
typedef ULONG DEVICE_TYPE;
#define FILE_DEVICE_NETWORK 0x00000012
#define FILE_DEVICE_UNKNOWN 0x00000022
#define FILE_DEVICE_TRANSPORT 0x00000021
#define FILE_DEVICE_SECURE_OPEN 0x00000100

/** DEVICE_OBJECT.Flags. */
#define DO_VERIFY_VOLUME 0x00000002
#define DO_BUFFERED_IO 0x00000004
#define DO_EXCLUSIVE 0x00000008
#define DO_DIRECT_IO 0x00000010
#define DO_MAP_IO_BUFFER 0x00000020
#define DO_DEVICE_INITIALIZING 0x00000080
#define DO_POWER_PAGABLE 0x00002000

/** IO_STACK_LOCATION.Control. */
#define SL_PENDING_RETURNED 0x01
#define SL_ERROR_RETURNED 0x02
#define SL_INVOKE_ON_CANCEL 0x20
#define SL_INVOKE_ON_SUCCESS 0x40
#define SL_INVOKE_ON_ERROR 0x80

/** IoCompleteRequest's priority boost for drivers that give none. */
#define IO_NO_INCREMENT 0
#define IO_NETWORK_INCREMENT 2

/* ------------------------------------------------------------------------------------------ */
/* Structures                                                                                  */
/* ------------------------------------------------------------------------------------------ */

struct _DEVICE_OBJECT;
struct _DRIVER_OBJECT;
struct _IO_STACK_LOCATION;

typedef struct _IO_STATUS_BLOCK {
    union {
        NTSTATUS Status;
        PVOID Pointer;
    };
    ULONG_PTR Information;
} IO_STATUS_BLOCK, *PIO_STATUS_BLOCK;

/** Opaque objects the structures below point at. */
typedef struct _FILE_OBJECT* PFILE_OBJECT;
typedef struct _IO_TIMER* PIO_TIMER;
typedef struct _VPB* PVPB;
typedef struct _FAST_IO_DISPATCH* PFAST_IO_DISPATCH;
typedef PVOID PSECURITY_DESCRIPTOR;

typedef struct _KDEVICE_QUEUE_ENTRY {
    LIST_ENTRY DeviceListEntry;
    ULONG SortKey;
    BOOLEAN Inserted;
} KDEVICE_QUEUE_ENTRY, *PKDEVICE_QUEUE_ENTRY;

typedef struct _KDEVICE_QUEUE {
    CSHORT Type;
    CSHORT Size;
    LIST_ENTRY DeviceListHead;
    KSPIN_LOCK Lock;
    __extension__ union {
        BOOLEAN Busy;
        __extension__ struct {
            LONG64 Reserved : 8;
            LONG64 Hint : 56;
        };
    };
} KDEVICE_QUEUE, *PKDEVICE_QUEUE;

typedef enum _IO_ALLOCATION_ACTION {
    KeepObject = 1,
    DeallocateObject = 2,
    DeallocateObjectKeepRegisters = 3
} IO_ALLOCATION_ACTION;

typedef IO_ALLOCATION_ACTION DRIVER_CONTROL(_In_ struct _DEVICE_OBJECT* DeviceObject,
                                            _Inout_ struct _IRP* Irp, _In_ PVOID MapRegisterBase,
                                            _In_ PVOID Context);
typedef DRIVER_CONTROL* PDRIVER_CONTROL;

typedef struct _WAIT_CONTEXT_BLOCK {
    KDEVICE_QUEUE_ENTRY WaitQueueEntry;
    PDRIVER_CONTROL DeviceRoutine;
    PVOID DeviceContext;
    ULONG NumberOfMapRegisters;
    PVOID DeviceObject;
    PVOID CurrentIrp;
    PKDPC BufferChainingDpc;
} WAIT_CONTEXT_BLOCK, *PWAIT_CONTEXT_BLOCK;

/** An asynchronous procedure call object (x64, 0x58 bytes); the simulator delivers no APCs. */
typedef struct _KAPC {
    UCHAR Type;
    UCHAR SpareByte0;
    UCHAR Size;
    UCHAR SpareByte1;
    ULONG SpareLong0;
    struct _KTHREAD* Thread;
    LIST_ENTRY ApcListEntry;
    PVOID Reserved[3];
    PVOID NormalContext;
    PVOID SystemArgument1;
    PVOID SystemArgument2;
    CCHAR ApcStateIndex;
    KPROCESSOR_MODE ApcMode;
    BOOLEAN Inserted;
} KAPC, *PKAPC, *PRKAPC;

/** The roles of a driver's routines (the WDK's function role types). */
typedef NTSTATUS DRIVER_INITIALIZE(_In_ struct _DRIVER_OBJECT* DriverObject,
                                   _In_ PUNICODE_STRING RegistryPath);
typedef DRIVER_INITIALIZE* PDRIVER_INITIALIZE;
typedef VOID DRIVER_UNLOAD(_In_ struct _DRIVER_OBJECT* DriverObject);
typedef DRIVER_UNLOAD* PDRIVER_UNLOAD;
typedef NTSTATUS DRIVER_DISPATCH(_In_ struct _DEVICE_OBJECT* DeviceObject,
                                 _Inout_ struct _IRP* Irp);
typedef DRIVER_DISPATCH* PDRIVER_DISPATCH;
typedef DRIVER_DISPATCH DRIVER_DISPATCH_PAGED;
typedef VOID DRIVER_STARTIO(_Inout_ struct _DEVICE_OBJECT* DeviceObject, _Inout_ struct _IRP* Irp);
typedef DRIVER_STARTIO* PDRIVER_STARTIO;
typedef NTSTATUS DRIVER_ADD_DEVICE(_In_ struct _DRIVER_OBJECT* DriverObject,
                                   _In_ struct _DEVICE_OBJECT* PhysicalDeviceObject);
typedef DRIVER_ADD_DEVICE* PDRIVER_ADD_DEVICE;
typedef VOID DRIVER_CANCEL(_Inout_ struct _DEVICE_OBJECT* DeviceObject, _Inout_ struct _IRP* Irp);
typedef DRIVER_CANCEL* PDRIVER_CANCEL;
typedef NTSTATUS IO_COMPLETION_ROUTINE(_In_ struct _DEVICE_OBJECT* DeviceObject,
                                       _In_ struct _IRP* Irp, _In_opt_ PVOID Context);
typedef IO_COMPLETION_ROUTINE* PIO_COMPLETION_ROUTINE;

/** The x64 device object (0x150 bytes, 16-byte aligned). */
typedef struct __attribute__((aligned(16))) _DEVICE_OBJECT {
    CSHORT Type;
    USHORT Size;
    LONG ReferenceCount;
    struct _DRIVER_OBJECT* DriverObject;
    struct _DEVICE_OBJECT* NextDevice;
    struct _DEVICE_OBJECT* AttachedDevice;
    struct _IRP* CurrentIrp;
    PIO_TIMER Timer;
    ULONG Flags;
    ULONG Characteristics;
    PVPB volatile Vpb;
    PVOID DeviceExtension;
    DEVICE_TYPE DeviceType;
    CCHAR StackSize;
    union {
        LIST_ENTRY ListEntry;
        WAIT_CONTEXT_BLOCK Wcb;
    } Queue;
    ULONG AlignmentRequirement;
    KDEVICE_QUEUE DeviceQueue;
    KDPC Dpc;
    ULONG ActiveThreadCount;
    PSECURITY_DESCRIPTOR SecurityDescriptor;
    KEVENT DeviceLock;
    USHORT SectorSize;
    USHORT Spare1;
    struct _DEVOBJ_EXTENSION* DeviceObjectExtension;
    PVOID Reserved;
} DEVICE_OBJECT, *PDEVICE_OBJECT;

typedef struct _DEVOBJ_EXTENSION {
    CSHORT Type;
    USHORT Size;
    PDEVICE_OBJECT DeviceObject;
} DEVOBJ_EXTENSION, *PDEVOBJ_EXTENSION;

typedef struct _DRIVER_EXTENSION {
    struct _DRIVER_OBJECT* DriverObject;
    PDRIVER_ADD_DEVICE AddDevice;
    ULONG Count;
    UNICODE_STRING ServiceKeyName;
} DRIVER_EXTENSION, *PDRIVER_EXTENSION;

/** The x64 driver object (0x150 bytes). */
typedef struct _DRIVER_OBJECT {
    CSHORT Type;
    CSHORT Size;
    PDEVICE_OBJECT DeviceObject;
    ULONG Flags;
    PVOID DriverStart;
    ULONG DriverSize;
    PVOID DriverSection;
    PDRIVER_EXTENSION DriverExtension;
    UNICODE_STRING DriverName;
    PUNICODE_STRING HardwareDatabase;
    PFAST_IO_DISPATCH FastIoDispatch;
    PDRIVER_INITIALIZE DriverInit;
    PDRIVER_STARTIO DriverStartIo;
    PDRIVER_UNLOAD DriverUnload;
    PDRIVER_DISPATCH MajorFunction[IRP_MJ_MAXIMUM_FUNCTION + 1];
} DRIVER_OBJECT, *PDRIVER_OBJECT;

/**
 * One stack location of an IRP (x64, 0x48 bytes). Parameters carries the forms drivers of the
 * simulator's world use; Others overlays the whole 0x20-byte union.
 */
typedef struct _IO_STACK_LOCATION {
    UCHAR MajorFunction;
    UCHAR MinorFunction;
    UCHAR Flags;
    UCHAR Control;
    union {
        struct {
            PVOID SecurityContext;
            ULONG Options;
            USHORT __attribute__((aligned(8))) FileAttributes;
            USHORT ShareAccess;
            ULONG __attribute__((aligned(8))) EaLength;
        } Create;
        struct {
            ULONG Length;
            ULONG __attribute__((aligned(8))) Key;
            ULONG Flags;
            LARGE_INTEGER ByteOffset;
        } Read;
        struct {
            ULONG Length;
            ULONG __attribute__((aligned(8))) Key;
            ULONG Flags;
            LARGE_INTEGER ByteOffset;
        } Write;
        struct {
            ULONG OutputBufferLength;
            ULONG __attribute__((aligned(8))) InputBufferLength;
            ULONG __attribute__((aligned(8))) IoControlCode;
            PVOID Type3InputBuffer;
        } DeviceIoControl;
        struct {
            PVOID Argument1;
            PVOID Argument2;
            PVOID Argument3;
            PVOID Argument4;
        } Others;
    } Parameters;
    PDEVICE_OBJECT DeviceObject;
    PFILE_OBJECT FileObject;
    PIO_COMPLETION_ROUTINE CompletionRoutine;
    PVOID Context;
} IO_STACK_LOCATION, *PIO_STACK_LOCATION;

/**
 * The x64 I/O request packet (0xD0 bytes), followed in memory by its StackCount stack locations.
 * Location StackCount is the first one used (by the driver the IRP is sent to first); each
 * IoCallDriver moves CurrentLocation one down.
 */
struct _IRP {
    CSHORT Type;
    USHORT Size;
    PMDL MdlAddress;
    ULONG Flags;
    union {
        struct _IRP* MasterIrp;
        volatile LONG IrpCount;
        PVOID SystemBuffer;
    } AssociatedIrp;
    LIST_ENTRY ThreadListEntry;
    IO_STATUS_BLOCK IoStatus;
    KPROCESSOR_MODE RequestorMode;
    BOOLEAN PendingReturned;
    CHAR StackCount;
    CHAR CurrentLocation;
    BOOLEAN Cancel;
    KIRQL CancelIrql;
    CCHAR ApcEnvironment;
    UCHAR AllocationFlags;
    PIO_STATUS_BLOCK UserIosb;
    PKEVENT UserEvent;
    union {
        struct {
            union {
                PVOID UserApcRoutine;
                PVOID IssuingProcess;
            };
            PVOID UserApcContext;
        } AsynchronousParameters;
        LARGE_INTEGER AllocationSize;
    } Overlay;
    PDRIVER_CANCEL volatile CancelRoutine;
    PVOID UserBuffer;
    __extension__ union {
        struct {
            __extension__ union {
                KDEVICE_QUEUE_ENTRY DeviceQueueEntry;
                __extension__ struct { PVOID DriverContext[4]; };
            };
            PETHREAD Thread;
            PCHAR AuxiliaryBuffer;
            __extension__ struct {
                LIST_ENTRY ListEntry;
                union {
                    struct _IO_STACK_LOCATION* CurrentStackLocation;
                    ULONG PacketType;
                };
            };
            PFILE_OBJECT OriginalFileObject;
        } Overlay;
        KAPC Apc;
        PVOID CompletionKey;
    } Tail;
};

/* ------------------------------------------------------------------------------------------ */
/* IRP stack navigation (WDK inline routines)                                                  */
/* ------------------------------------------------------------------------------------------ */

/** The stack location of the driver the IRP is at. */
static inline PIO_STACK_LOCATION IoGetCurrentIrpStackLocation(_In_ PIRP Irp) {
    return Irp->Tail.Overlay.CurrentStackLocation;
}

/** The stack location of the next-lower driver (where IoSetCompletionRoutine writes). */
static inline PIO_STACK_LOCATION IoGetNextIrpStackLocation(_In_ PIRP Irp) {
    return Irp->Tail.Overlay.CurrentStackLocation - 1;
}

/** Moves the IRP one location down, as IoCallDriver does before it calls the driver. */
static inline VOID IoSetNextIrpStackLocation(_Inout_ PIRP Irp) {
    Irp->CurrentLocation--;
    Irp->Tail.Overlay.CurrentStackLocation--;
}

/** Lets the next-lower driver use the current location: IoCallDriver moves back onto it. */
static inline VOID IoSkipCurrentIrpStackLocation(_Inout_ PIRP Irp) {
    Irp->CurrentLocation++;
    Irp->Tail.Overlay.CurrentStackLocation++;
}

/** Copies the current location to the next one, without the completion routine. */
static inline VOID IoCopyCurrentIrpStackLocationToNext(_Inout_ PIRP Irp) {
    PIO_STACK_LOCATION current = IoGetCurrentIrpStackLocation(Irp);
    PIO_STACK_LOCATION next = IoGetNextIrpStackLocation(Irp);
    memcpy(next, current, offsetof(IO_STACK_LOCATION, CompletionRoutine));
    next->Control = 0;
}

/** Marks the current location pending (the dispatch routine then returns STATUS_PENDING). */
static inline VOID IoMarkIrpPending(_Inout_ PIRP Irp) {
    IoGetCurrentIrpStackLocation(Irp)->Control |= SL_PENDING_RETURNED;
}

/**
 * Registers CompletionRoutine(DeviceObject, Irp, Context) in the next-lower location, to be
 * called by IoCompleteRequest when the final status is a success (InvokeOnSuccess), an error
 * (InvokeOnError) or the IRP was cancelled (InvokeOnCancel).
 */
static inline VOID IoSetCompletionRoutine(_In_ PIRP Irp,
                                          _In_opt_ PIO_COMPLETION_ROUTINE CompletionRoutine,
                                          _In_opt_ PVOID Context, _In_ BOOLEAN InvokeOnSuccess,
                                          _In_ BOOLEAN InvokeOnError, _In_ BOOLEAN InvokeOnCancel) {
    PIO_STACK_LOCATION next = IoGetNextIrpStackLocation(Irp);
    next->CompletionRoutine = CompletionRoutine;
    next->Context = Context;
    next->Control = 0;
    if (InvokeOnSuccess) {
        next->Control |= SL_INVOKE_ON_SUCCESS;
    }
    if (InvokeOnError) {
        next->Control |= SL_INVOKE_ON_ERROR;
    }
    if (InvokeOnCancel) {
        next->Control |= SL_INVOKE_ON_CANCEL;
    }
}

/** Bytes of an IRP with StackSize stack locations. */
#define IoSizeOfIrp(StackSize)                                                                \
    NDKSIM_SCAST(USHORT, sizeof(IRP) + NDKSIM_SCAST(SIZE_T, NDKSIM_SCAST(UCHAR, StackSize)) * \
                                           sizeof(IO_STACK_LOCATION))

/* ------------------------------------------------------------------------------------------ */
/* IRP routines                                                                                */
/* ------------------------------------------------------------------------------------------ */

/**
 * Allocates an IRP with StackSize stack locations from the tracked pool (tag 'Irp ') and
 * initializes it: no location is current yet (CurrentLocation is StackSize + 1). ChargeQuota is
 * ignored. Returns NULL when memory runs out or StackSize < 1. Rule: IRQL <= DISPATCH_LEVEL.
 */
NDKSIM_API PIRP IoAllocateIrp(_In_ CCHAR StackSize, _In_ BOOLEAN ChargeQuota);

/**
 * Formats caller memory of PacketSize bytes (IoSizeOfIrp(StackSize)) as a fresh IRP. Rule: IRQL
 * <= DISPATCH_LEVEL.
 */
NDKSIM_API VOID IoInitializeIrp(_Inout_ PIRP Irp, _In_ USHORT PacketSize, _In_ CCHAR StackSize);

/**
 * Re-initializes an IRP from IoAllocateIrp for another request and sets IoStatus.Status to
 * Iostatus. Rule: IRQL <= DISPATCH_LEVEL.
 */
NDKSIM_API VOID IoReuseIrp(_Inout_ PIRP Irp, _In_ NTSTATUS Iostatus);

/**
 * Frees an IRP from IoAllocateIrp. Rules: IRQL <= DISPATCH_LEVEL; Irp came from IoAllocateIrp
 * and is not freed twice (pool rules).
 */
NDKSIM_API VOID IoFreeIrp(_In_ PIRP Irp);

/**
 * Sends the IRP to DeviceObject's driver: moves it one location down, records DeviceObject in
 * that location and calls the driver's MajorFunction routine for the location's MajorFunction,
 * returning its status. Rules: IRQL <= DISPATCH_LEVEL; a location is left (sending an IRP with
 * no location left is a violation, Windows' NO_MORE_IRP_STACK_LOCATIONS, and returns
 * STATUS_INVALID_PARAMETER).
 */
NDKSIM_API NTSTATUS IofCallDriver(_In_ PDEVICE_OBJECT DeviceObject, _Inout_ PIRP Irp);
#define IoCallDriver(DeviceObject, Irp) IofCallDriver(DeviceObject, Irp)

/**
 * Completes the IRP with the status in Irp->IoStatus: walks the stack from the current location
 * up, calling each location's completion routine whose invoke condition matches (with the
 * device object of the location above, NULL at the top); a routine returning
 * STATUS_MORE_PROCESSING_REQUIRED stops the walk and keeps the IRP with its owner. When the walk
 * reaches the top, IoStatus is copied to *UserIosb and UserEvent is signaled when they are set;
 * the simulator has no issuing thread, so it frees nothing. PriorityBoost is ignored. Rules: IRQL
 * <= DISPATCH_LEVEL; IoStatus.Status is not STATUS_PENDING; the IRP is not completed twice
 * (violations).
 */
NDKSIM_API VOID IofCompleteRequest(_In_ PIRP Irp, _In_ CCHAR PriorityBoost);
#define IoCompleteRequest(Irp, PriorityBoost) IofCompleteRequest(Irp, PriorityBoost)

/* ------------------------------------------------------------------------------------------ */
/* Device objects                                                                              */
/* ------------------------------------------------------------------------------------------ */

/**
 * Creates a device object for DriverObject with a zeroed device extension of
 * DeviceExtensionSize bytes (16-byte aligned, at DeviceObject->DeviceExtension), links it at the
 * head of DriverObject->DeviceObject, and returns STATUS_SUCCESS. Flags start as
 * DO_DEVICE_INITIALIZING (plus DO_EXCLUSIVE when Exclusive); StackSize is 1. A DeviceName already
 * used by a live device returns STATUS_OBJECT_NAME_COLLISION; there is no namespace beyond that
 * check. Returns STATUS_INSUFFICIENT_RESOURCES when memory runs out. Rule: IRQL == PASSIVE_LEVEL.
 */
NDKSIM_API NTSTATUS IoCreateDevice(_In_ PDRIVER_OBJECT DriverObject, _In_ ULONG DeviceExtensionSize,
                                   _In_opt_ PUNICODE_STRING DeviceName, _In_ DEVICE_TYPE DeviceType,
                                   _In_ ULONG DeviceCharacteristics, _In_ BOOLEAN Exclusive,
                                   _Out_ PDEVICE_OBJECT* DeviceObject);

/**
 * Unlinks the device object from its driver and frees it once no work item holds a reference
 * to it (immediately when ReferenceCount is 0). Rules: IRQL == PASSIVE_LEVEL; DeviceObject is a
 * live device object (deleting it twice is a violation).
 */
NDKSIM_API VOID IoDeleteDevice(_In_ PDEVICE_OBJECT DeviceObject);

/* ------------------------------------------------------------------------------------------ */
/* I/O work items                                                                              */
/* ------------------------------------------------------------------------------------------ */

typedef enum _WORK_QUEUE_TYPE {
    CriticalWorkQueue = 0,
    DelayedWorkQueue = 1,
    HyperCriticalWorkQueue = 2,
    NormalWorkQueue = 3,
    BackgroundWorkQueue = 4,
    RealTimeWorkQueue = 5,
    SuperCriticalWorkQueue = 6,
    MaximumWorkQueue = 7,
    CustomPriorityWorkQueue = 32
} WORK_QUEUE_TYPE;

/** An I/O work item: opaque; allocate it or size caller storage with IoSizeofWorkItem. */
typedef struct _IO_WORKITEM* PIO_WORKITEM;

typedef VOID IO_WORKITEM_ROUTINE(_In_ PDEVICE_OBJECT DeviceObject, _In_opt_ PVOID Context);
typedef IO_WORKITEM_ROUTINE* PIO_WORKITEM_ROUTINE;
typedef VOID IO_WORKITEM_ROUTINE_EX(_In_ PVOID IoObject, _In_opt_ PVOID Context,
                                    _In_ PIO_WORKITEM IoWorkItem);
typedef IO_WORKITEM_ROUTINE_EX* PIO_WORKITEM_ROUTINE_EX;

/**
 * Allocates a work item for DeviceObject from the tracked pool (tag 'IoWk'), or returns NULL
 * when memory runs out. Rule: IRQL <= DISPATCH_LEVEL.
 */
NDKSIM_API PIO_WORKITEM IoAllocateWorkItem(_In_ PDEVICE_OBJECT DeviceObject);

/**
 * Frees a work item from IoAllocateWorkItem; its own routine may free it. Rules: IRQL <=
 * DISPATCH_LEVEL; the item is not queued (freeing a queued item is a violation and frees
 * nothing); it came from IoAllocateWorkItem.
 */
NDKSIM_API VOID IoFreeWorkItem(_In_ PIO_WORKITEM IoWorkItem);

/** Bytes of caller storage IoInitializeWorkItem needs. Any IRQL. */
NDKSIM_API ULONG IoSizeofWorkItem(void);

/**
 * Formats caller storage of IoSizeofWorkItem() bytes as a work item for IoObject, a driver
 * object or one of the driver's device objects. Rule: IRQL <= DISPATCH_LEVEL.
 */
NDKSIM_API VOID IoInitializeWorkItem(_In_ PVOID IoObject, _Out_ PIO_WORKITEM IoWorkItem);

/**
 * Releases a work item formatted by IoInitializeWorkItem before its storage is freed. Rules:
 * IRQL <= DISPATCH_LEVEL; the item is not queued (a violation).
 */
NDKSIM_API VOID IoUninitializeWorkItem(_Inout_ PIO_WORKITEM IoWorkItem);

/**
 * Queues the item to run WorkerRoutine(DeviceObject, Context) once on a simulated system worker
 * thread at PASSIVE_LEVEL. The worker pool serves the queue types in priority order (RealTime,
 * HyperCritical, SuperCritical, Critical, Normal, Delayed, Background; CustomPriority counts as
 * Delayed) and each queue in FIFO order. Until the routine has returned, the item holds a
 * reference on its device object, which keeps the driver loaded (ndksim_kernel_unload_driver
 * waits for it) and defers IoDeleteDevice's free. Rules: IRQL <= DISPATCH_LEVEL; the item is not
 * already queued (a violation; the second queueing is ignored); the routine must return at
 * PASSIVE_LEVEL outside any critical region (a violation otherwise; the worker then restores
 * both).
 */
NDKSIM_API VOID IoQueueWorkItem(_Inout_ PIO_WORKITEM IoWorkItem,
                                _In_ PIO_WORKITEM_ROUTINE WorkerRoutine,
                                _In_ WORK_QUEUE_TYPE QueueType, _In_opt_ PVOID Context);

/** IoQueueWorkItem with the routine form that also receives the IoObject and the item. */
NDKSIM_API VOID IoQueueWorkItemEx(_Inout_ PIO_WORKITEM IoWorkItem,
                                  _In_ PIO_WORKITEM_ROUTINE_EX WorkerRoutine,
                                  _In_ WORK_QUEUE_TYPE QueueType, _In_opt_ PVOID Context);

/* ------------------------------------------------------------------------------------------ */
/* Driver life cycle and leak report (simulator only)                                          */
/* ------------------------------------------------------------------------------------------ */

/**
 * What a leak report found. Pool, DPC, timer, thread and resource counts are process-wide (the
 * simulator cannot tell which driver queued a DPC or set a timer); work items and device objects
 * are the unloaded driver's when a report follows an unload.
 */
typedef struct _NDKSIM_LEAK_SUMMARY {
    SIZE_T PoolAllocations;      /**< live pool blocks (ndksim_kernel_pool_report) */
    SIZE_T WorkItemsPending;     /**< work items queued or running */
    SIZE_T DpcsQueued;           /**< DPCs queued or running */
    SIZE_T TimersSet;            /**< timers still set */
    SIZE_T SystemThreadsRunning; /**< system threads whose start routine has not ended */
    SIZE_T DeviceObjects;        /**< device objects not deleted */
    SIZE_T ResourcesLive;        /**< ERESOURCEs initialized and not deleted */
    SIZE_T ReporterLeaks;        /* WSK registrations and WSK-opened NDK adapters left open
                                    (ndksim_kernel_wsk_report), plus what the registered leak
                                    reporters returned */
    SIZE_T Total;                /**< the sum of the above */
} NDKSIM_LEAK_SUMMARY, *PNDKSIM_LEAK_SUMMARY;

/** A leak reporter: logs what it finds at error level and returns how many leaks it found. */
typedef SIZE_T (*NDKSIM_LEAK_REPORTER)(void);

/**
 * Adds a reporter that every later leak report calls (for objects other parts of the simulator
 * own, such as WSK sockets); Name labels its count in the log. Adding the same reporter again
 * only renames it. Thread-safe.
 */
NDKSIM_API VOID ndksim_kernel_add_leak_reporter(_In_ const char* Name,
                                                _In_ NDKSIM_LEAK_REPORTER Reporter);

/** Removes a reporter added by ndksim_kernel_add_leak_reporter; unknown reporters are ignored. */
NDKSIM_API VOID ndksim_kernel_remove_leak_reporter(_In_ NDKSIM_LEAK_REPORTER Reporter);

/**
 * "Loads" a driver: builds its DRIVER_OBJECT (DriverName "\Driver\<ServiceName>", every
 * MajorFunction completing with STATUS_INVALID_DEVICE_REQUEST) and calls
 * DriverEntry(DriverObject, RegistryPath) at PASSIVE_LEVEL on the calling thread, with the
 * registry path "\Registry\Machine\System\CurrentControlSet\Services\<ServiceName>". On success
 * returns DriverEntry's status and the object in *DriverObject. When DriverEntry fails, Windows
 * does not call DriverUnload: the status is returned, *DriverObject is NULL, and the object is
 * freed once the driver's work items have run (a leak report then shows what the failed entry
 * left behind). Rules: the caller is at PASSIVE_LEVEL; DriverEntry returns at PASSIVE_LEVEL
 * outside any critical region (a violation otherwise). ServiceName is ASCII.
 */
NDKSIM_API NTSTATUS ndksim_kernel_load_driver(_In_ PDRIVER_INITIALIZE DriverEntry,
                                              _In_ const char* ServiceName,
                                              _Out_ PDRIVER_OBJECT* DriverObject);

/**
 * Unloads a driver loaded by ndksim_kernel_load_driver: calls its DriverUnload at PASSIVE_LEVEL,
 * then waits up to TimeoutMilliseconds for the driver's queued and running work items and for
 * every queued DPC to finish (Windows keeps a driver's image loaded until its work items have
 * run), and reports leaks as ndksim_kernel_leak_report does into *Leaks (optional). The driver
 * object is freed unless a work item or device object still refers to it. Returns
 * STATUS_SUCCESS, or STATUS_INVALID_DEVICE_REQUEST without unloading when the driver set no
 * DriverUnload (Windows cannot unload such a driver either). Rule: the caller is at
 * PASSIVE_LEVEL.
 */
NDKSIM_API NTSTATUS ndksim_kernel_unload_driver(_In_ PDRIVER_OBJECT DriverObject,
                                                _In_ ULONG TimeoutMilliseconds,
                                                _Out_opt_ PNDKSIM_LEAK_SUMMARY Leaks);

/**
 * Logs every leak at error level and counts them into *Leaks: live pool allocations by tag,
 * pending work items and device objects (of DriverObject, or of every driver when it is NULL),
 * queued DPCs, set timers, running system threads, live ERESOURCEs and the registered
 * reporters' counts. Returns the total.
 */
NDKSIM_API SIZE_T ndksim_kernel_leak_report(_In_opt_ PDRIVER_OBJECT DriverObject,
                                            _Out_opt_ PNDKSIM_LEAK_SUMMARY Leaks);

///@{
/** The single counts behind the report, for tests (NULL: every driver). */
NDKSIM_API SIZE_T ndksim_kernel_work_items_pending(_In_opt_ PDRIVER_OBJECT DriverObject);
NDKSIM_API SIZE_T ndksim_kernel_devices_live(_In_opt_ PDRIVER_OBJECT DriverObject);
NDKSIM_API SIZE_T ndksim_kernel_dpcs_queued(void);
NDKSIM_API SIZE_T ndksim_kernel_timers_set(void);
NDKSIM_API SIZE_T ndksim_kernel_system_threads_running(void);
///@}

/* ------------------------------------------------------------------------------------------ */
/* Layout checks (WDK x64 sizes)                                                               */
/* ------------------------------------------------------------------------------------------ */

#if NDKSIM_ABI_LAYOUT_CHECKS
NDKSIM_STATIC_ASSERT(sizeof(IO_STATUS_BLOCK) == 0x10, "IO_STATUS_BLOCK size");
NDKSIM_STATIC_ASSERT(offsetof(IO_STATUS_BLOCK, Information) == 0x08, "Information offset");
NDKSIM_STATIC_ASSERT(sizeof(KDEVICE_QUEUE_ENTRY) == 0x18, "KDEVICE_QUEUE_ENTRY size");
NDKSIM_STATIC_ASSERT(sizeof(KDEVICE_QUEUE) == 0x28, "KDEVICE_QUEUE size");
NDKSIM_STATIC_ASSERT(sizeof(WAIT_CONTEXT_BLOCK) == 0x48, "WAIT_CONTEXT_BLOCK size");
NDKSIM_STATIC_ASSERT(sizeof(KAPC) == 0x58, "KAPC size");
NDKSIM_STATIC_ASSERT(sizeof(DEVICE_OBJECT) == 0x150, "DEVICE_OBJECT size");
NDKSIM_STATIC_ASSERT(offsetof(DEVICE_OBJECT, ReferenceCount) == 0x04, "ReferenceCount offset");
NDKSIM_STATIC_ASSERT(offsetof(DEVICE_OBJECT, DriverObject) == 0x08, "DriverObject offset");
NDKSIM_STATIC_ASSERT(offsetof(DEVICE_OBJECT, Flags) == 0x30, "DEVICE_OBJECT.Flags offset");
NDKSIM_STATIC_ASSERT(offsetof(DEVICE_OBJECT, DeviceExtension) == 0x40, "DeviceExtension offset");
NDKSIM_STATIC_ASSERT(offsetof(DEVICE_OBJECT, StackSize) == 0x4C, "StackSize offset");
NDKSIM_STATIC_ASSERT(offsetof(DEVICE_OBJECT, DeviceQueue) == 0xA0, "DeviceQueue offset");
NDKSIM_STATIC_ASSERT(offsetof(DEVICE_OBJECT, Dpc) == 0xC8, "DEVICE_OBJECT.Dpc offset");
NDKSIM_STATIC_ASSERT(offsetof(DEVICE_OBJECT, DeviceLock) == 0x118, "DeviceLock offset");
NDKSIM_STATIC_ASSERT(offsetof(DEVICE_OBJECT, DeviceObjectExtension) == 0x138,
                     "DeviceObjectExtension offset");
NDKSIM_STATIC_ASSERT(sizeof(DRIVER_OBJECT) == 0x150, "DRIVER_OBJECT size");
NDKSIM_STATIC_ASSERT(offsetof(DRIVER_OBJECT, DriverExtension) == 0x30, "DriverExtension offset");
NDKSIM_STATIC_ASSERT(offsetof(DRIVER_OBJECT, DriverName) == 0x38, "DriverName offset");
NDKSIM_STATIC_ASSERT(offsetof(DRIVER_OBJECT, DriverUnload) == 0x68, "DriverUnload offset");
NDKSIM_STATIC_ASSERT(offsetof(DRIVER_OBJECT, MajorFunction) == 0x70, "MajorFunction offset");
NDKSIM_STATIC_ASSERT(sizeof(IO_STACK_LOCATION) == 0x48, "IO_STACK_LOCATION size");
NDKSIM_STATIC_ASSERT(offsetof(IO_STACK_LOCATION, Parameters) == 0x08, "Parameters offset");
NDKSIM_STATIC_ASSERT(offsetof(IO_STACK_LOCATION, Parameters.DeviceIoControl.IoControlCode) == 0x18,
                     "IoControlCode offset");
NDKSIM_STATIC_ASSERT(offsetof(IO_STACK_LOCATION, DeviceObject) == 0x28, "DeviceObject offset");
NDKSIM_STATIC_ASSERT(offsetof(IO_STACK_LOCATION, CompletionRoutine) == 0x38,
                     "CompletionRoutine offset");
NDKSIM_STATIC_ASSERT(sizeof(IRP) == 0xD0, "IRP size");
NDKSIM_STATIC_ASSERT(offsetof(IRP, MdlAddress) == 0x08, "IRP.MdlAddress offset");
NDKSIM_STATIC_ASSERT(offsetof(IRP, AssociatedIrp) == 0x18, "IRP.AssociatedIrp offset");
NDKSIM_STATIC_ASSERT(offsetof(IRP, IoStatus) == 0x30, "IRP.IoStatus offset");
NDKSIM_STATIC_ASSERT(offsetof(IRP, StackCount) == 0x42, "IRP.StackCount offset");
NDKSIM_STATIC_ASSERT(offsetof(IRP, CurrentLocation) == 0x43, "IRP.CurrentLocation offset");
NDKSIM_STATIC_ASSERT(offsetof(IRP, UserIosb) == 0x48, "IRP.UserIosb offset");
NDKSIM_STATIC_ASSERT(offsetof(IRP, UserEvent) == 0x50, "IRP.UserEvent offset");
NDKSIM_STATIC_ASSERT(offsetof(IRP, CancelRoutine) == 0x68, "IRP.CancelRoutine offset");
NDKSIM_STATIC_ASSERT(offsetof(IRP, Tail) == 0x78, "IRP.Tail offset");
NDKSIM_STATIC_ASSERT(offsetof(IRP, Tail.Overlay.Thread) == 0x98, "Tail.Overlay.Thread offset");
NDKSIM_STATIC_ASSERT(offsetof(IRP, Tail.Overlay.CurrentStackLocation) == 0xB8,
                     "CurrentStackLocation offset");
#endif

#ifdef __cplusplus
}
#endif
