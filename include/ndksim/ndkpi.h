/* SPDX-License-Identifier: MIT */
/** \file
 * ndkpi.h - the Network Direct Kernel provider interface (NDKPI up to 2.1) for Linux.
 *
 * Consumer code written against Windows' ndkpi.h compiles against this header unchanged: every
 * name, value, parameter list and x64 structure layout follows REFERENCE.md sections 2 to 5.
 * Providers (the ndksim library) fill the dispatch tables; consumers call through them.
 *
 * Conventions shared by every function below (REFERENCE.md 5 and 10):
 *  - All provider functions and consumer callbacks may run at DISPATCH_LEVEL and must not block,
 *    except NdkQueryAdapterInfo (PASSIVE_LEVEL, blocking).
 *  - A function that takes a completion callback either finishes inline (any status other than
 *    STATUS_PENDING; the callback is not called) or returns STATUS_PENDING and later calls the
 *    callback exactly once. The callback may run before the function returns.
 *  - A create function that pends delivers the object only through the create completion.
 *  - Work requests (send, receive, read, ...) never pend: success means "posted" and the result
 *    arrives as one CQ entry (none for a successful NDK_OP_FLAG_SILENT_SUCCESS request).
 */
#pragma once

#include "ndisndk.h"
#include "ndkinfo.h"
#include "wdm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* Constants (REFERENCE.md 2)                                                                  */
/* ------------------------------------------------------------------------------------------ */

/** NDK_OBJECT_HEADER.ObjectType (2.1). */
typedef enum _NDK_OBJECT_TYPE {
    NdkObjectTypeUndefined = 0,
    NdkObjectTypeAdapter = 1,
    NdkObjectTypeQp = 2,
    NdkObjectTypeCq = 3,
    NdkObjectTypeMr = 4,
    NdkObjectTypeMw = 5,
    NdkObjectTypePd = 6,
    NdkObjectTypeSharedEndpoint = 7,
    NdkObjectTypeConnector = 8,
    NdkObjectTypeListener = 9,
    NdkObjectTypeSrq = 10,
    NdkObjectTypeMax = 11
} NDK_OBJECT_TYPE;

/**
 * NDK_RESULT_EX.Type (2.2, NDKPI 1.2+). The values are bits, except ReceiveAndInvalidate, which
 * is the receive bit plus 0x8000: the receiver's completion of a peer's NdkSendAndInvalidate.
 * The sender of a SendAndInvalidate sees NdkOperationTypeSend.
 */
typedef enum _NDK_OPERATION_TYPE {
    NdkOperationTypeReceive = 0x0001,
    NdkOperationTypeReceiveAndInvalidate = 0x8001,
    NdkOperationTypeSend = 0x0002,
    NdkOperationTypeFastRegister = 0x0004,
    NdkOperationTypeBind = 0x0008,
    NdkOperationTypeInvalidate = 0x0010,
    NdkOperationTypeRead = 0x0020,
    NdkOperationTypeWrite = 0x0040
} NDK_OPERATION_TYPE;

/** Flags argument of the work-request functions (2.3). */
#define NDK_OP_FLAG_SILENT_SUCCESS 0x00000001
#define NDK_OP_FLAG_READ_FENCE 0x00000002
#define NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT 0x00000004
#define NDK_OP_FLAG_ALLOW_REMOTE_READ 0x00000008
#define NDK_OP_FLAG_ALLOW_LOCAL_WRITE 0x00000010 /* fast-register MRs */
/** Deliberately includes the ALLOW_LOCAL_WRITE bit: remote write implies local write. */
#define NDK_OP_FLAG_ALLOW_REMOTE_WRITE 0x00000030
#define NDK_OP_FLAG_INLINE 0x00000040
#define NDK_OP_FLAG_RDMA_READ_SINK 0x00000080
/** 1.2+. Some docs print 0x200 here; that is DEFER's value (REFERENCE.md 12, item 1). */
#define NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE 0x00000100
#define NDK_OP_FLAG_DEFER 0x00000200 /* 1.2+, a doorbell-batching hint */

/** Flags argument of NdkRegisterMr (2.4). */
#define NDK_MR_FLAG_ALLOW_LOCAL_READ 0x00000000 /* always granted */
#define NDK_MR_FLAG_ALLOW_LOCAL_WRITE 0x00000001
#define NDK_MR_FLAG_ALLOW_REMOTE_READ 0x00000002
/** Deliberately includes the ALLOW_LOCAL_WRITE bit (0x1); the remote-write bit itself is 0x4. */
#define NDK_MR_FLAG_ALLOW_REMOTE_WRITE 0x00000005
#define NDK_MR_FLAG_RDMA_READ_SINK 0x00000008

/** Type argument of NdkArmCq (2.5). */
#define NDK_CQ_NOTIFY_ERRORS 0
#define NDK_CQ_NOTIFY_ANY 1
#define NDK_CQ_NOTIFY_SOLICITED 2

/* ------------------------------------------------------------------------------------------ */
/* Structures (REFERENCE.md 3)                                                                 */
/* ------------------------------------------------------------------------------------------ */

/** Reserved for the consumer side of NDK; the provider zeroes it at creation and never reads it. */
typedef struct _NDK_OBJECT_HEADER_RESERVED_BLOCK {
    PVOID rf[4];
} NDK_OBJECT_HEADER_RESERVED_BLOCK;

/**
 * First member of every NDK object. Generic functions (close, query-extension, invalidate, the
 * create completion) receive a pointer to it, and the provider recovers its object from that
 * address (CONTAINING_RECORD).
 */
typedef struct _NDK_OBJECT_HEADER {
    NDK_VERSION Version;        /**< the version negotiated when the adapter was opened */
    NDK_OBJECT_TYPE ObjectType; /**< never NdkObjectTypeUndefined */
    NDK_OBJECT_HEADER_RESERVED_BLOCK NdkReserved;
} NDK_OBJECT_HEADER;

/** One completion, as returned by NdkGetCqResults. */
typedef struct _NDK_RESULT {
    NTSTATUS Status;
    ULONG BytesTransferred; /**< defined for receive completions only */
    PVOID QPContext;        /**< as given to NdkCreateQp / NdkCreateQpWithSrq */
    PVOID RequestContext;   /**< as given when the request was posted */
} NDK_RESULT;

/**
 * One completion, as returned by NdkGetCqResultsEx (1.2+). ProviderErrorCode is the 2.1 addition;
 * on x64 it occupies what was padding, so the offsets of 1.2 and 2.1 agree.
 */
typedef struct _NDK_RESULT_EX {
    NTSTATUS Status;
    ULONG BytesTransferred;
    PVOID QPContext;
    PVOID RequestContext;
    NDK_OPERATION_TYPE Type;
    ULONG ProviderErrorCode; /**< 0 on success; on failure 0 means "no further detail" */
    ULONG_PTR TypeSpecificCompletionOutput; /**< ReceiveAndInvalidate: the invalidated token */
} NDK_RESULT_EX;

/** An adapter ("bus/logical") address of one PAGE_SIZE-aligned page. */
typedef PHYSICAL_ADDRESS NDK_LOGICAL_ADDRESS;

/**
 * Adapter page list produced by NdkBuildLAM. Declared with one array element; the real length is
 * AdapterPageCount, so a LAM for N pages needs FIELD_OFFSET(..., AdapterPageArray) + 8 * N bytes
 * (16 + 8N on x64). Consecutive pages need not be contiguous in adapter address space.
 */
/** clang-format off */
typedef _Struct_size_bytes_(FIELD_OFFSET(NDK_LOGICAL_ADDRESS_MAPPING, AdapterPageArray) +
                            AdapterPageCount * sizeof(NDK_LOGICAL_ADDRESS))
struct _NDK_LOGICAL_ADDRESS_MAPPING {
    PVOID AdapterContext; /**< provider-private; the consumer must not change it */
    ULONG AdapterPageCount;
    _Field_size_(AdapterPageCount) NDK_LOGICAL_ADDRESS AdapterPageArray[1];
} NDK_LOGICAL_ADDRESS_MAPPING;
/** clang-format on */

/**
 * Scatter/gather element. LogicalAddress is used when MemoryRegionToken is the PD's privileged
 * token, VirtualAddress (an address inside a registered MR) otherwise.
 */
typedef struct _NDK_SGE {
    union {
        PVOID VirtualAddress;
        NDK_LOGICAL_ADDRESS LogicalAddress;
    };
    ULONG Length;
    UINT32 MemoryRegionToken; /**< local token */
} NDK_SGE;

/** Returned by NdkQueryExtension; no standard extensions are defined. */
typedef struct _NDK_EXTENSION_INTERFACE {
    CONST VOID* Dispatch;
} NDK_EXTENSION_INTERFACE;

/** The ten NDK objects; their definitions follow their dispatch tables below. */
typedef struct _NDK_ADAPTER NDK_ADAPTER;
typedef struct _NDK_CQ NDK_CQ;
typedef struct _NDK_PD NDK_PD;
typedef struct _NDK_MR NDK_MR;
typedef struct _NDK_MW NDK_MW;
typedef struct _NDK_SRQ NDK_SRQ;
typedef struct _NDK_QP NDK_QP;
typedef struct _NDK_SHARED_ENDPOINT NDK_SHARED_ENDPOINT;
typedef struct _NDK_CONNECTOR NDK_CONNECTOR;
typedef struct _NDK_LISTENER NDK_LISTENER;

/**
 * Function types (REFERENCE.md 4 and 5). As in Windows' header, each NDK_FN_* name is a POINTER
 * to function, which is what the dispatch-table members hold.
 *
 * Address parameters are "CONST PSOCKADDR": the pointer itself is const, the pointee is not,
 * exactly as on Windows. Top-level const is not part of a function's type, so providers may
 * define these parameters as plain PSOCKADDR.
 */

/* ------------------------------------------------------------------------------------------ */
/* Consumer callbacks (5.1)                                                                    */
/* ------------------------------------------------------------------------------------------ */

/**
 * Completes a close that returned STATUS_PENDING. It is the last callback for the object: every
 * request and event callback of the object has returned before it runs.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL) VOID (*NDK_FN_CLOSE_COMPLETION)(_In_opt_ PVOID Context);

/** Completes a pended request; Context is the RequestContext the request was given. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    VOID (*NDK_FN_REQUEST_COMPLETION)(_In_opt_ PVOID Context, _In_ NTSTATUS Status);

/**
 * Completes a pended create. On success pNdkObject is the new object's header; the provider does
 * not write the create function's out-pointer in this case.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    VOID (*NDK_FN_CREATE_COMPLETION)(_In_opt_ PVOID Context, _In_ NTSTATUS Status,
                                     _In_ NDK_OBJECT_HEADER* pNdkObject);

/**
 * Fires at most once per NdkArmCq once a matching completion is in the CQ. CqStatus is
 * STATUS_SUCCESS normally, STATUS_BUFFER_OVERFLOW after a CQ overrun (the CQ and its QPs are then
 * unusable), or STATUS_INTERNAL_ERROR for a fatal CQ error.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    VOID (*NDK_FN_CQ_NOTIFICATION_CALLBACK)(_In_opt_ PVOID CqNotificationContext,
                                            _In_ NTSTATUS CqStatus);

/**
 * Fires when the SRQ falls below its notify threshold (STATUS_SUCCESS), or with
 * STATUS_INTERNAL_ERROR when the SRQ and its QPs have failed.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    VOID (*NDK_FN_SRQ_NOTIFICATION_CALLBACK)(_In_opt_ PVOID SrqNotificationContext,
                                             _In_ NTSTATUS SrqStatus);

/**
 * Delivers an incoming connection request to a listener as a new, provider-created connector.
 * The consumer answers with NdkAccept(Ex) or NdkReject on that connector.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    VOID (*NDK_FN_CONNECT_EVENT_CALLBACK)(_In_opt_ PVOID ConnectEventContext,
                                          _In_ NDK_CONNECTOR* pNdkConnector);

/**
 * Reports, once, that the peer disconnected (only if the local side has not called
 * NdkDisconnect). The context is the one given to NdkCompleteConnect or NdkAccept.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    VOID (*NDK_FN_DISCONNECT_EVENT_CALLBACK)(_In_opt_ PVOID DisconnectEventContext);

/** 2.1: as NDK_FN_DISCONNECT_EVENT_CALLBACK plus a provider-specific reason (0 = none given). */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    VOID (*NDK_FN_DISCONNECT_EVENT_CALLBACK_EX)(_In_opt_ PVOID DisconnectEventContext,
                                                _In_ ULONG ProviderDisconnectReason);

/* ------------------------------------------------------------------------------------------ */
/* Generic object functions (5.2)                                                              */
/* ------------------------------------------------------------------------------------------ */

/**
 * Closes any object but the adapter. Never fails: STATUS_SUCCESS when done inline, otherwise
 * STATUS_PENDING and CloseCompletion later (for example while successor objects still exist).
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_CLOSE_OBJECT)(_In_ NDK_OBJECT_HEADER* pNdkObject,
                                    _In_ NDK_FN_CLOSE_COMPLETION CloseCompletion,
                                    _In_opt_ PVOID RequestContext);

/**
 * Looks up an extension interface by GUID and version. Never pends; STATUS_NOT_SUPPORTED when the
 * extension is unknown.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL) NTSTATUS (*NDK_FN_QUERY_EXTENSION_INTERFACE)(
    _In_ NDK_OBJECT_HEADER* pNdkObject, _In_ GUID* ExtensionInterfaceID,
    _In_ NDK_VERSION ExtensionInterfaceVersion, _Out_ NDK_EXTENSION_INTERFACE* pExtensionInterface);

/* ------------------------------------------------------------------------------------------ */
/* Adapter (5.3)                                                                               */
/* ------------------------------------------------------------------------------------------ */

/**
 * Copies the adapter's NDK_ADAPTER_INFO. PASSIVE_LEVEL, blocks, never pends. When *pBufferSize is
 * too small it returns STATUS_BUFFER_TOO_SMALL with the required size in *pBufferSize.
 */
typedef _IRQL_requires_max_(PASSIVE_LEVEL)
    NTSTATUS (*NDK_FN_QUERY_ADAPTER_INFO)(_In_ NDK_ADAPTER* pNdkAdapter,
                                          _Out_writes_bytes_to_opt_(*pBufferSize, *pBufferSize)
                                              NDK_ADAPTER_INFO* pInfo,
                                          _Inout_ ULONG* pBufferSize);

/** Unused: present in the public header but in no dispatch table (5.12). */
typedef _IRQL_requires_max_(PASSIVE_LEVEL)
    NTSTATUS (*NDK_FN_QUERY_ADAPTER_INFO_EX)(_In_ NDK_ADAPTER* pNdkAdapter,
                                             _In_ NDK_VERSION Version,
                                             _Out_writes_bytes_to_opt_(*pBufferSize, *pBufferSize)
                                                 NDK_ADAPTER_INFO* pInfo,
                                             _Inout_ ULONG* pBufferSize);

/**
 * Creates a completion queue of CqDepth entries; CqNotification is required. May pend (the CQ then
 * arrives through CreateCompletion); STATUS_INVALID_PARAMETER when CqDepth exceeds MaxCqDepth.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_CREATE_CQ)(_In_ NDK_ADAPTER* pNdkAdapter, _In_ ULONG CqDepth,
                                 _In_ NDK_FN_CQ_NOTIFICATION_CALLBACK CqNotification,
                                 _In_opt_ PVOID CqNotificationContext,
                                 _In_opt_ GROUP_AFFINITY* Affinity,
                                 _In_ NDK_FN_CREATE_COMPLETION CreateCompletion,
                                 _In_opt_ PVOID RequestContext, _Outptr_ NDK_CQ** ppNdkCq);

/** Creates a protection domain. May pend. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_CREATE_PD)(_In_ NDK_ADAPTER* pNdkAdapter,
                                 _In_ NDK_FN_CREATE_COMPLETION CreateCompletion,
                                 _In_opt_ PVOID RequestContext, _Outptr_ NDK_PD** ppNdkPd);

/**
 * Reserves a local address and ND port (port 0: the provider picks one from 49152-65535) that
 * several connectors can share. May pend.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL) NTSTATUS (*NDK_FN_CREATE_SHARED_ENDPOINT)(
    _In_ NDK_ADAPTER* pNdkAdapter, _In_reads_bytes_(AddressLength) CONST PSOCKADDR pAddress,
    _In_ ULONG AddressLength, _In_ NDK_FN_CREATE_COMPLETION CreateCompletion,
    _In_opt_ PVOID RequestContext, _Outptr_ NDK_SHARED_ENDPOINT** ppNdkSharedEndpoint);

/** Creates a connector for one outgoing connection. May pend. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_CREATE_CONNECTOR)(_In_ NDK_ADAPTER* pNdkAdapter,
                                        _In_ NDK_FN_CREATE_COMPLETION CreateCompletion,
                                        _In_opt_ PVOID RequestContext,
                                        _Outptr_ NDK_CONNECTOR** ppNdkConnector);

/** Creates a listener whose connection requests arrive through ConnectEvent. May pend. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL) NTSTATUS (*NDK_FN_CREATE_LISTENER)(
    _In_ NDK_ADAPTER* pNdkAdapter, _In_ NDK_FN_CONNECT_EVENT_CALLBACK ConnectEvent,
    _In_opt_ PVOID ConnectEventContext, _In_ NDK_FN_CREATE_COMPLETION CreateCompletion,
    _In_opt_ PVOID RequestContext, _Outptr_ NDK_LISTENER** ppNdkListener);

/**
 * Maps the first Length bytes of a virtually contiguous MDL chain to adapter logical pages and
 * returns the in-page offset of the first byte in *pFBO. May pend (RequestCompletion). When
 * *pLAMSize is too small it returns STATUS_BUFFER_TOO_SMALL with the required size; a chain that
 * is not virtually contiguous gives STATUS_INVALID_PARAMETER.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_BUILD_LAM)(_In_ NDK_ADAPTER* pNdkAdapter, _In_ MDL* Mdl, _In_ SIZE_T Length,
                                 _In_opt_ NDK_FN_REQUEST_COMPLETION RequestCompletion,
                                 _In_opt_ PVOID RequestContext,
                                 _Out_writes_bytes_to_opt_(*pLAMSize, *pLAMSize)
                                     NDK_LOGICAL_ADDRESS_MAPPING* pNdkLAM,
                                 _Inout_ ULONG* pLAMSize, _Out_ ULONG* pFBO);

/** Releases a LAM from NdkBuildLAM once no outstanding request uses its pages. Never pends. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    VOID (*NDK_FN_RELEASE_LAM)(_In_ NDK_ADAPTER* pNdkAdapter,
                               _In_ NDK_LOGICAL_ADDRESS_MAPPING* pNdkLAM);

/* ------------------------------------------------------------------------------------------ */
/* Completion queue (5.4)                                                                      */
/* ------------------------------------------------------------------------------------------ */

/** Changes the CQ depth (only with NDK_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED). May pend. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_RESIZE_CQ)(_In_ NDK_CQ* pNdkCq, _In_ ULONG CqDepth,
                                 _In_ NDK_FN_REQUEST_COMPLETION RequestCompletion,
                                 _In_opt_ PVOID RequestContext);

/** Requests one notification for the next completion of kind Type (NDK_CQ_NOTIFY_*). */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    VOID (*NDK_FN_ARM_CQ)(_In_ NDK_CQ* pNdkCq, _In_ ULONG Type);

/** Removes up to nResults completions; returns how many were written (0: the CQ is empty). */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    ULONG (*NDK_FN_GET_CQ_RESULTS)(_In_ NDK_CQ* pNdkCq,
                                   _Out_writes_to_(nResults, return ) NDK_RESULT Results[],
                                   _In_ ULONG nResults);

/**
 * Sets interrupt moderation (interval in microseconds, count in completions). Never pends;
 * STATUS_NOT_SUPPORTED without NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_CONTROL_CQ_INTERRUPT_MODERATION)(_In_ NDK_CQ* pNdkCq,
                                                       _In_ ULONG ModerationInterval,
                                                       _In_ ULONG ModerationCount);

/** 1.2+: as NDK_FN_GET_CQ_RESULTS, with the operation type of each completion. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    ULONG (*NDK_FN_GET_CQ_RESULTS_EX)(_In_ NDK_CQ* pNdkCq,
                                      _Out_writes_to_(nResults, return ) NDK_RESULT_EX Results[],
                                      _In_ ULONG nResults);

/* ------------------------------------------------------------------------------------------ */
/* Protection domain (5.5)                                                                     */
/* ------------------------------------------------------------------------------------------ */

/**
 * Creates a memory region. FastRegister TRUE: usable only with NdkInitializeFastRegisterMr and
 * NdkFastRegister; FALSE: only with NdkRegisterMr. May pend.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_CREATE_MR)(_In_ NDK_PD* pNdkPd, _In_ BOOLEAN FastRegister,
                                 _In_ NDK_FN_CREATE_COMPLETION CreateCompletion,
                                 _In_opt_ PVOID RequestContext, _Outptr_ NDK_MR** ppNdkMr);

/** Creates a memory window (bound later with NdkBind). May pend. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_CREATE_MW)(_In_ NDK_PD* pNdkPd,
                                 _In_ NDK_FN_CREATE_COMPLETION CreateCompletion,
                                 _In_opt_ PVOID RequestContext, _Outptr_ NDK_MW** ppNdkMw);

/**
 * Creates a shared receive queue. SrqNotification fires when fewer than NotifyThreshold receives
 * remain posted. May pend; STATUS_INVALID_PARAMETER beyond MaxSrqDepth or MaxReceiveRequestSge.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_CREATE_SRQ)(_In_ NDK_PD* pNdkPd, _In_ ULONG SrqDepth,
                                  _In_ ULONG MaxReceiveRequestSge, _In_ ULONG NotifyThreshold,
                                  _In_opt_ NDK_FN_SRQ_NOTIFICATION_CALLBACK SrqNotification,
                                  _In_opt_ PVOID SrqNotificationContext,
                                  _In_opt_ GROUP_AFFINITY* Affinity,
                                  _In_ NDK_FN_CREATE_COMPLETION CreateCompletion,
                                  _In_opt_ PVOID RequestContext, _Outptr_ NDK_SRQ** ppNdkSrq);

/**
 * Creates a queue pair with its own receive queue. Receive completions go to pReceiveCq,
 * initiator completions to pInitiatorCq (may be the same CQ). May pend; STATUS_INVALID_PARAMETER
 * when a depth, SGE count or InlineDataSize exceeds NDK_ADAPTER_INFO.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_CREATE_QP)(_In_ NDK_PD* pNdkPd, _In_ NDK_CQ* pReceiveCq,
                                 _In_ NDK_CQ* pInitiatorCq, _In_opt_ PVOID QPContext,
                                 _In_ ULONG ReceiveQueueDepth, _In_ ULONG InitiatorQueueDepth,
                                 _In_ ULONG MaxReceiveRequestSge, _In_ ULONG MaxInitiatorRequestSge,
                                 _In_ ULONG InlineDataSize,
                                 _In_ NDK_FN_CREATE_COMPLETION CreateCompletion,
                                 _In_opt_ PVOID RequestContext, _Outptr_ NDK_QP** ppNdkQp);

/** As NDK_FN_CREATE_QP, with receives taken from pSrq instead of a receive queue. May pend. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL) NTSTATUS (*NDK_FN_CREATE_QP_WITH_SRQ)(
    _In_ NDK_PD* pNdkPd, _In_ NDK_CQ* pReceiveCq, _In_ NDK_CQ* pInitiatorCq, _In_ NDK_SRQ* pSrq,
    _In_opt_ PVOID QPContext, _In_ ULONG InitiatorQueueDepth, _In_ ULONG MaxInitiatorRequestSge,
    _In_ ULONG InlineDataSize, _In_ NDK_FN_CREATE_COMPLETION CreateCompletion,
    _In_opt_ PVOID RequestContext, _Outptr_ NDK_QP** ppNdkQp);

/**
 * Returns the PD's privileged token: local access to logical addresses (from a LAM) without
 * registration, never usable remotely.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    VOID (*NDK_FN_GET_PRIVILEGED_MEMORY_REGION_TOKEN)(_In_ NDK_PD* pNdkPd, _Out_ UINT32* pToken);

/* ------------------------------------------------------------------------------------------ */
/* Memory region and memory window (5.6)                                                       */
/* ------------------------------------------------------------------------------------------ */

/**
 * Registers the first Length bytes of a virtually contiguous, locked MDL chain with access Flags
 * (NDK_MR_FLAG_*). MmGetMdlVirtualAddress of the first MDL is the region's base key. May pend;
 * STATUS_INVALID_PARAMETER when the chain is not virtually contiguous.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_REGISTER_MR)(_In_ NDK_MR* pNdkMr, _In_ MDL* Mdl, _In_ SIZE_T Length,
                                   _In_ ULONG Flags,
                                   _In_ NDK_FN_REQUEST_COMPLETION RequestCompletion,
                                   _In_opt_ PVOID RequestContext);

/** Undoes NdkRegisterMr; the MR can then be registered again. May pend. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_DEREGISTER_MR)(_In_ NDK_MR* pNdkMr,
                                     _In_ NDK_FN_REQUEST_COMPLETION RequestCompletion,
                                     _In_opt_ PVOID RequestContext);

/**
 * Prepares a fast-register MR for up to AdapterPageCount pages; RemoteAccess allows remote
 * flags in later NdkFastRegister calls. May pend; STATUS_IMPLEMENTATION_LIMIT for too many pages.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_INITIALIZE_FAST_REGISTER_MR)(_In_ NDK_MR* pNdkMr, _In_ ULONG AdapterPageCount,
                                                   _In_ BOOLEAN RemoteAccess,
                                                   _In_ NDK_FN_REQUEST_COMPLETION RequestCompletion,
                                                   _In_opt_ PVOID RequestContext);

/** Token a peer uses to read or write the MR. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    UINT32 (*NDK_FN_GET_REMOTE_TOKEN_FROM_MR)(_In_ NDK_MR* pNdkMr);

/** Token local SGEs use to reference the MR. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    UINT32 (*NDK_FN_GET_LOCAL_TOKEN_FROM_MR)(_In_ NDK_MR* pNdkMr);

/** Token a peer uses to access the MW; valid after a successful NdkBind. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    UINT32 (*NDK_FN_GET_REMOTE_TOKEN_FROM_MW)(_In_ NDK_MW* pNdkMw);

/* ------------------------------------------------------------------------------------------ */
/* Shared receive queue (5.7)                                                                  */
/* ------------------------------------------------------------------------------------------ */

/**
 * Changes the SRQ depth and/or notify threshold (0 keeps the current value; a threshold of 0 also
 * keeps the arm state). May pend.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_MODIFY_SRQ)(_In_ NDK_SRQ* pNdkSrq, _In_ ULONG SrqDepth,
                                  _In_ ULONG NotifyThreshold,
                                  _In_ NDK_FN_REQUEST_COMPLETION RequestCompletion,
                                  _In_opt_ PVOID RequestContext);

/** Posts a receive to the SRQ; the result is a CQ entry of whichever QP consumes it. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_SRQ_RECEIVE)(_In_ NDK_SRQ* pNdkSrq, _In_opt_ PVOID RequestContext,
                                   _In_reads_(nSge) CONST NDK_SGE* pSgl, _In_ ULONG nSge);

/* ------------------------------------------------------------------------------------------ */
/* Queue pair work requests (5.8): posted or failed inline, never pending                      */
/* ------------------------------------------------------------------------------------------ */

/** Cancels every pending receive and initiator request; each completes with STATUS_CANCELLED. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL) VOID (*NDK_FN_FLUSH)(_In_ NDK_QP* pNdkQp);

/** Posts a send (NDK_OP_FLAG_*). STATUS_CONNECTION_INVALID when the QP is not connected. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_SEND)(_In_ NDK_QP* pNdkQp, _In_opt_ PVOID RequestContext,
                            _In_reads_(nSge) CONST NDK_SGE* pSgl, _In_ ULONG nSge,
                            _In_ ULONG Flags);

/** Posts a receive buffer to the QP's own receive queue. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_RECEIVE)(_In_ NDK_QP* pNdkQp, _In_opt_ PVOID RequestContext,
                               _In_reads_(nSge) CONST NDK_SGE* pSgl, _In_ ULONG nSge);

/**
 * Binds pMw to [VirtualAddress, VirtualAddress + Length) inside pMr. STATUS_ACCESS_VIOLATION when
 * remote write is requested on an MR without local write.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_BIND)(_In_ NDK_QP* pNdkQp, _In_opt_ PVOID RequestContext, _In_ NDK_MR* pMr,
                            _In_ NDK_MW* pMw, _In_ PVOID VirtualAddress, _In_ SIZE_T Length,
                            _In_ ULONG Flags);

/**
 * Registers AdapterPageCount logical pages on a fast-register MR, the region starting FBO bytes
 * into the first page and addressed as BaseVirtualAddress (FBO plus a multiple of PAGE_SIZE).
 * STATUS_ACCESS_VIOLATION for remote flags on an MR initialized without RemoteAccess.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_FAST_REGISTER)(_In_ NDK_QP* pNdkQp, _In_opt_ PVOID RequestContext,
                                     _In_ NDK_MR* pMr, _In_ ULONG AdapterPageCount,
                                     _In_reads_(AdapterPageCount)
                                         CONST NDK_LOGICAL_ADDRESS* AdapterPageArray,
                                     _In_ ULONG FBO, _In_ SIZE_T Length,
                                     _In_ PVOID BaseVirtualAddress, _In_ ULONG Flags);

/** Invalidates a fast-registered MR or a bound MW (never an NdkRegisterMr registration). */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_INVALIDATE)(_In_ NDK_QP* pNdkQp, _In_opt_ PVOID RequestContext,
                                  _In_ NDK_OBJECT_HEADER* pNdkMrOrMw, _In_ ULONG Flags);

/**
 * RDMA read from the peer's RemoteAddress (host byte order) under RemoteToken into the local
 * SGEs. STATUS_REMOTE_RESOURCES when the read would go beyond the remote memory.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_READ)(_In_ NDK_QP* pNdkQp, _In_opt_ PVOID RequestContext,
                            _In_reads_(nSge) CONST NDK_SGE* pSgl, _In_ ULONG nSge,
                            _In_ UINT64 RemoteAddress, _In_ UINT32 RemoteToken, _In_ ULONG Flags);

/** RDMA write of the local SGEs to the peer's RemoteAddress under RemoteToken. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_WRITE)(_In_ NDK_QP* pNdkQp, _In_opt_ PVOID RequestContext,
                             _In_reads_(nSge) CONST NDK_SGE* pSgl, _In_ ULONG nSge,
                             _In_ UINT64 RemoteAddress, _In_ UINT32 RemoteToken, _In_ ULONG Flags);

/**
 * 1.2+: a send that also invalidates RemoteToken at the receiver. Note the parameter order:
 * Flags comes before RemoteToken, unlike Read and Write.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_SEND_AND_INVALIDATE)(_In_ NDK_QP* pNdkQp, _In_opt_ PVOID RequestContext,
                                           _In_reads_(nSge) CONST NDK_SGE* pSgl, _In_ ULONG nSge,
                                           _In_ ULONG Flags, _In_ UINT32 RemoteToken);

/* ------------------------------------------------------------------------------------------ */
/* Shared endpoint (5.10)                                                                      */
/* ------------------------------------------------------------------------------------------ */

/**
 * Copies the endpoint's local address. Never pends; STATUS_BUFFER_TOO_SMALL with the required
 * length (16 for IPv4, 28 for IPv6) when *pAddressLength is too small.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL) NTSTATUS (*NDK_FN_GET_SHARED_ENDPOINT_LOCAL_ADDRESS)(
    _In_ NDK_SHARED_ENDPOINT* pNdkSharedEndpoint,
    _Out_writes_bytes_to_opt_(*pAddressLength, *pAddressLength) PSOCKADDR pAddress,
    _Inout_ ULONG* pAddressLength);

/* ------------------------------------------------------------------------------------------ */
/* Connector (5.9)                                                                             */
/* ------------------------------------------------------------------------------------------ */

/**
 * Starts a connection from pSrcAddress to pDestAddress (destination ND port) for pNdkQp, sending
 * pPrivateData. May pend; completes when the peer accepts or rejects.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL) NTSTATUS (*NDK_FN_CONNECT)(
    _In_ NDK_CONNECTOR* pNdkConnector, _In_ NDK_QP* pNdkQp,
    _In_reads_bytes_(SrcAddressLength) CONST PSOCKADDR pSrcAddress, _In_ ULONG SrcAddressLength,
    _In_reads_bytes_(DestAddressLength) CONST PSOCKADDR pDestAddress, _In_ ULONG DestAddressLength,
    _In_ ULONG InboundReadLimit, _In_ ULONG OutboundReadLimit,
    _In_reads_bytes_opt_(PrivateDataLength) CONST PVOID pPrivateData, _In_ ULONG PrivateDataLength,
    _In_ NDK_FN_REQUEST_COMPLETION RequestCompletion, _In_opt_ PVOID RequestContext);

/** As NDK_FN_CONNECT, using a shared endpoint's address and port as the source. May pend. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL) NTSTATUS (*NDK_FN_CONNECT_WITH_SHARED_ENDPOINT)(
    _In_ NDK_CONNECTOR* pNdkConnector, _In_ NDK_QP* pNdkQp,
    _In_ NDK_SHARED_ENDPOINT* pNdkSharedEndpoint,
    _In_reads_bytes_(DestAddressLength) CONST PSOCKADDR pDestAddress, _In_ ULONG DestAddressLength,
    _In_ ULONG InboundReadLimit, _In_ ULONG OutboundReadLimit,
    _In_reads_bytes_opt_(PrivateDataLength) CONST PVOID pPrivateData, _In_ ULONG PrivateDataLength,
    _In_ NDK_FN_REQUEST_COMPLETION RequestCompletion, _In_opt_ PVOID RequestContext);

/**
 * Active side, after Connect completed: finishes the handshake and registers the disconnect
 * callback. May pend.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_COMPLETE_CONNECT)(_In_ NDK_CONNECTOR* pNdkConnector,
                                        _In_opt_ NDK_FN_DISCONNECT_EVENT_CALLBACK DisconnectEvent,
                                        _In_opt_ PVOID DisconnectEventContext,
                                        _In_ NDK_FN_REQUEST_COMPLETION RequestCompletion,
                                        _In_opt_ PVOID RequestContext);

/**
 * Passive side: accepts the request delivered by the connect event, binding pNdkQp. May pend;
 * completes after the active side's CompleteConnect (STATUS_IO_TIMEOUT if it never comes).
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL) NTSTATUS (*NDK_FN_ACCEPT)(
    _In_ NDK_CONNECTOR* pNdkConnector, _In_ NDK_QP* pNdkQp, _In_ ULONG InboundReadLimit,
    _In_ ULONG OutboundReadLimit, _In_reads_bytes_opt_(PrivateDataLength) CONST PVOID pPrivateData,
    _In_ ULONG PrivateDataLength, _In_opt_ NDK_FN_DISCONNECT_EVENT_CALLBACK DisconnectEvent,
    _In_opt_ PVOID DisconnectEventContext, _In_ NDK_FN_REQUEST_COMPLETION RequestCompletion,
    _In_opt_ PVOID RequestContext);

/** Rejects a connection request (passive side) or a completed Connect (active side). Never pends. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_REJECT)(_In_ NDK_CONNECTOR* pNdkConnector,
                              _In_reads_bytes_opt_(PrivateDataLength) CONST PVOID pPrivateData,
                              _In_ ULONG PrivateDataLength);

/**
 * Returns the effective read limits and the peer's private data. Never pends;
 * STATUS_BUFFER_TOO_SMALL when *pPrivateDataLength is too small (the required size is always
 * written back).
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL) NTSTATUS (*NDK_FN_GET_CONNECTION_DATA)(
    _In_ NDK_CONNECTOR* pNdkConnector, _Out_opt_ ULONG* pInboundReadLimit,
    _Out_opt_ ULONG* pOutboundReadLimit,
    _Out_writes_bytes_to_opt_(*pPrivateDataLength, *pPrivateDataLength) PVOID pPrivateData,
    _Inout_ ULONG* pPrivateDataLength);

/** Copies the connection's local address. Never pends; STATUS_BUFFER_TOO_SMALL as above. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_GET_LOCAL_ADDRESS)(_In_ NDK_CONNECTOR* pNdkConnector,
                                         _Out_writes_bytes_to_opt_(*pAddressLength, *pAddressLength)
                                             PSOCKADDR pAddress,
                                         _Inout_ ULONG* pAddressLength);

/** Copies the connection's remote address. Never pends; STATUS_BUFFER_TOO_SMALL as above. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_GET_PEER_ADDRESS)(_In_ NDK_CONNECTOR* pNdkConnector,
                                        _Out_writes_bytes_to_opt_(*pAddressLength, *pAddressLength)
                                            PSOCKADDR pAddress,
                                        _Inout_ ULONG* pAddressLength);

/**
 * Graceful disconnect; implies a flush of the QP. May pend; completes once the peer's disconnect
 * arrived and all DMA on the QP finished.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_DISCONNECT)(_In_ NDK_CONNECTOR* pNdkConnector,
                                  _In_ NDK_FN_REQUEST_COMPLETION RequestCompletion,
                                  _In_opt_ PVOID RequestContext);

/** Unused: present in the public header but in no dispatch table (5.12). */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_DISCONNECT_EX)(_In_ NDK_CONNECTOR* pNdkConnector, _In_ BOOLEAN Abortive,
                                     _In_ NDK_FN_REQUEST_COMPLETION RequestCompletion,
                                     _In_opt_ PVOID RequestContext);

/** 2.1: NDK_FN_COMPLETE_CONNECT with the extended disconnect callback. May pend. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL) NTSTATUS (*NDK_FN_COMPLETE_CONNECT_EX)(
    _In_ NDK_CONNECTOR* pNdkConnector, _In_opt_ NDK_FN_DISCONNECT_EVENT_CALLBACK_EX DisconnectEvent,
    _In_opt_ PVOID DisconnectEventContext, _In_ NDK_FN_REQUEST_COMPLETION RequestCompletion,
    _In_opt_ PVOID RequestContext);

/** 2.1: NDK_FN_ACCEPT with the extended disconnect callback. May pend. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL) NTSTATUS (*NDK_FN_ACCEPT_EX)(
    _In_ NDK_CONNECTOR* pNdkConnector, _In_ NDK_QP* pNdkQp, _In_ ULONG InboundReadLimit,
    _In_ ULONG OutboundReadLimit, _In_reads_bytes_opt_(PrivateDataLength) CONST PVOID pPrivateData,
    _In_ ULONG PrivateDataLength, _In_opt_ NDK_FN_DISCONNECT_EVENT_CALLBACK_EX DisconnectEvent,
    _In_opt_ PVOID DisconnectEventContext, _In_ NDK_FN_REQUEST_COMPLETION RequestCompletion,
    _In_opt_ PVOID RequestContext);

/* ------------------------------------------------------------------------------------------ */
/* Listener (5.10)                                                                             */
/* ------------------------------------------------------------------------------------------ */

/**
 * Starts listening on pAddress (port 0: the provider picks one from 49152-65535; read it back
 * with the listener's NdkGetLocalAddress). May pend.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    NTSTATUS (*NDK_FN_LISTEN)(_In_ NDK_LISTENER* pNdkListener,
                              _In_reads_bytes_(AddressLength) CONST PSOCKADDR pAddress,
                              _In_ ULONG AddressLength,
                              _In_ NDK_FN_REQUEST_COMPLETION RequestCompletion,
                              _In_opt_ PVOID RequestContext);

/** Copies the listener's local address. Never pends; STATUS_BUFFER_TOO_SMALL as above. */
typedef _IRQL_requires_max_(DISPATCH_LEVEL) NTSTATUS (*NDK_FN_GET_LISTENER_LOCAL_ADDRESS)(
    _In_ NDK_LISTENER* pNdkListener,
    _Out_writes_bytes_to_opt_(*pAddressLength, *pAddressLength) PSOCKADDR pAddress,
    _Inout_ ULONG* pAddressLength);

/**
 * Pause TRUE stops connect events (the listener then behaves as if absent); FALSE resumes them.
 */
typedef _IRQL_requires_max_(DISPATCH_LEVEL)
    VOID (*NDK_FN_CONTROL_CONNECT_EVENTS)(_In_ NDK_LISTENER* pNdkListener, _In_ BOOLEAN Pause);

/* ------------------------------------------------------------------------------------------ */
/* Dispatch tables and objects (REFERENCE.md 3 and 4)                                          */
/* ------------------------------------------------------------------------------------------ */

/**
 * Every table but the adapter's starts with the object's close and NdkQueryExtension; the adapter
 * is closed through CLOSE_NDK_ADAPTER_HANDLER instead. Providers fill every entry (unsupported
 * features return STATUS_NOT_SUPPORTED), set Dispatch before handing out an object, and never
 * read Dispatch back (a consumer may replace it to interpose).
 */

typedef struct _NDK_ADAPTER_DISPATCH {
    NDK_FN_QUERY_EXTENSION_INTERFACE NdkQueryExtension;
    NDK_FN_QUERY_ADAPTER_INFO NdkQueryAdapterInfo;
    NDK_FN_CREATE_CQ NdkCreateCq;
    NDK_FN_CREATE_PD NdkCreatePd;
    NDK_FN_CREATE_SHARED_ENDPOINT NdkCreateSharedEndpoint;
    NDK_FN_CREATE_CONNECTOR NdkCreateConnector;
    NDK_FN_CREATE_LISTENER NdkCreateListener;
    NDK_FN_BUILD_LAM NdkBuildLAM;
    NDK_FN_RELEASE_LAM NdkReleaseLAM;
} NDK_ADAPTER_DISPATCH;

struct _NDK_ADAPTER {
    NDK_OBJECT_HEADER Header;
    CONST NDK_ADAPTER_DISPATCH* Dispatch;
};

typedef struct _NDK_CQ_DISPATCH {
    NDK_FN_CLOSE_OBJECT NdkCloseCq;
    NDK_FN_QUERY_EXTENSION_INTERFACE NdkQueryExtension;
    NDK_FN_RESIZE_CQ NdkResizeCq;
    NDK_FN_ARM_CQ NdkArmCq;
    NDK_FN_GET_CQ_RESULTS NdkGetCqResults;
    NDK_FN_CONTROL_CQ_INTERRUPT_MODERATION NdkControlCqInterruptModeration;
    NDK_FN_GET_CQ_RESULTS_EX NdkGetCqResultsEx; /**< 1.2+ */
} NDK_CQ_DISPATCH;

struct _NDK_CQ {
    NDK_OBJECT_HEADER Header;
    CONST NDK_CQ_DISPATCH* Dispatch;
};

typedef struct _NDK_PD_DISPATCH {
    NDK_FN_CLOSE_OBJECT NdkClosePd;
    NDK_FN_QUERY_EXTENSION_INTERFACE NdkQueryExtension;
    NDK_FN_CREATE_MR NdkCreateMr;
    NDK_FN_CREATE_MW NdkCreateMw;
    NDK_FN_CREATE_SRQ NdkCreateSrq;
    NDK_FN_CREATE_QP NdkCreateQp;
    NDK_FN_CREATE_QP_WITH_SRQ NdkCreateQpWithSrq;
    NDK_FN_GET_PRIVILEGED_MEMORY_REGION_TOKEN NdkGetPrivilegedMemoryRegionToken;
} NDK_PD_DISPATCH;

struct _NDK_PD {
    NDK_OBJECT_HEADER Header;
    CONST NDK_PD_DISPATCH* Dispatch;
};

typedef struct _NDK_MR_DISPATCH {
    NDK_FN_CLOSE_OBJECT NdkCloseMr;
    NDK_FN_QUERY_EXTENSION_INTERFACE NdkQueryExtension;
    NDK_FN_REGISTER_MR NdkRegisterMr;
    NDK_FN_DEREGISTER_MR NdkDeregisterMr;
    NDK_FN_INITIALIZE_FAST_REGISTER_MR NdkInitializeFastRegisterMr;
    NDK_FN_GET_REMOTE_TOKEN_FROM_MR NdkGetRemoteTokenFromMr;
    NDK_FN_GET_LOCAL_TOKEN_FROM_MR NdkGetLocalTokenFromMr;
} NDK_MR_DISPATCH;

struct _NDK_MR {
    NDK_OBJECT_HEADER Header;
    CONST NDK_MR_DISPATCH* Dispatch;
};

typedef struct _NDK_MW_DISPATCH {
    NDK_FN_CLOSE_OBJECT NdkCloseMw;
    NDK_FN_QUERY_EXTENSION_INTERFACE NdkQueryExtension;
    NDK_FN_GET_REMOTE_TOKEN_FROM_MW NdkGetRemoteTokenFromMw;
} NDK_MW_DISPATCH;

struct _NDK_MW {
    NDK_OBJECT_HEADER Header;
    CONST NDK_MW_DISPATCH* Dispatch;
};

typedef struct _NDK_SRQ_DISPATCH {
    NDK_FN_CLOSE_OBJECT NdkCloseSrq;
    NDK_FN_QUERY_EXTENSION_INTERFACE NdkQueryExtension;
    NDK_FN_MODIFY_SRQ NdkModifySrq;
    NDK_FN_SRQ_RECEIVE NdkSrqReceive;
} NDK_SRQ_DISPATCH;

struct _NDK_SRQ {
    NDK_OBJECT_HEADER Header;
    CONST NDK_SRQ_DISPATCH* Dispatch;
};

typedef struct _NDK_QP_DISPATCH {
    NDK_FN_CLOSE_OBJECT NdkCloseQp;
    NDK_FN_QUERY_EXTENSION_INTERFACE NdkQueryExtension;
    NDK_FN_FLUSH NdkFlush;
    NDK_FN_SEND NdkSend;
    NDK_FN_RECEIVE NdkReceive;
    NDK_FN_BIND NdkBind;
    NDK_FN_FAST_REGISTER NdkFastRegister;
    NDK_FN_INVALIDATE NdkInvalidate;
    NDK_FN_READ NdkRead;
    NDK_FN_WRITE NdkWrite;
    NDK_FN_SEND_AND_INVALIDATE NdkSendAndInvalidate; /**< 1.2+ */
} NDK_QP_DISPATCH;

struct _NDK_QP {
    NDK_OBJECT_HEADER Header;
    CONST NDK_QP_DISPATCH* Dispatch;
};

typedef struct _NDK_SHARED_ENDPOINT_DISPATCH {
    NDK_FN_CLOSE_OBJECT NdkCloseSharedEndpoint;
    NDK_FN_QUERY_EXTENSION_INTERFACE NdkQueryExtension;
    NDK_FN_GET_SHARED_ENDPOINT_LOCAL_ADDRESS NdkGetLocalAddress;
} NDK_SHARED_ENDPOINT_DISPATCH;

struct _NDK_SHARED_ENDPOINT {
    NDK_OBJECT_HEADER Header;
    CONST NDK_SHARED_ENDPOINT_DISPATCH* Dispatch;
};

typedef struct _NDK_CONNECTOR_DISPATCH {
    NDK_FN_CLOSE_OBJECT NdkCloseConnector;
    NDK_FN_QUERY_EXTENSION_INTERFACE NdkQueryExtension;
    NDK_FN_CONNECT NdkConnect;
    NDK_FN_CONNECT_WITH_SHARED_ENDPOINT NdkConnectWithSharedEndpoint;
    NDK_FN_COMPLETE_CONNECT NdkCompleteConnect;
    NDK_FN_ACCEPT NdkAccept;
    NDK_FN_REJECT NdkReject;
    NDK_FN_GET_CONNECTION_DATA NdkGetConnectionData;
    NDK_FN_GET_LOCAL_ADDRESS NdkGetLocalAddress;
    NDK_FN_GET_PEER_ADDRESS NdkGetPeerAddress;
    NDK_FN_DISCONNECT NdkDisconnect;
    NDK_FN_COMPLETE_CONNECT_EX NdkCompleteConnectEx; /**< 2.1 */
    NDK_FN_ACCEPT_EX NdkAcceptEx;                    /**< 2.1 */
} NDK_CONNECTOR_DISPATCH;

struct _NDK_CONNECTOR {
    NDK_OBJECT_HEADER Header;
    CONST NDK_CONNECTOR_DISPATCH* Dispatch;
};

typedef struct _NDK_LISTENER_DISPATCH {
    NDK_FN_CLOSE_OBJECT NdkCloseListener;
    NDK_FN_QUERY_EXTENSION_INTERFACE NdkQueryExtension;
    NDK_FN_LISTEN NdkListen;
    NDK_FN_GET_LISTENER_LOCAL_ADDRESS NdkGetLocalAddress;
    NDK_FN_CONTROL_CONNECT_EVENTS NdkControlConnectEvents;
} NDK_LISTENER_DISPATCH;

struct _NDK_LISTENER {
    NDK_OBJECT_HEADER Header;
    CONST NDK_LISTENER_DISPATCH* Dispatch;
};

/* ------------------------------------------------------------------------------------------ */
/* Layout checks (REFERENCE.md 3 and 4, x64 values)                                            */
/* ------------------------------------------------------------------------------------------ */

NDKSIM_ASSERT_SIZE(NDK_OBJECT_TYPE, 4);
NDKSIM_ASSERT_SIZE(NDK_OPERATION_TYPE, 4);
NDKSIM_ASSERT_SIZE(NDK_LOGICAL_ADDRESS, 8);
NDKSIM_ASSERT_SIZE(NDK_SGE, 16); /**< 16 bytes on x86 as well */
NDKSIM_ASSERT_OFFSET(NDK_SGE, VirtualAddress, 0x00);
NDKSIM_ASSERT_OFFSET(NDK_SGE, LogicalAddress, 0x00);
NDKSIM_ASSERT_OFFSET(NDK_SGE, Length, 0x08);
NDKSIM_ASSERT_OFFSET(NDK_SGE, MemoryRegionToken, 0x0C);

#if NDKSIM_ABI_LAYOUT_CHECKS
NDKSIM_ASSERT_SIZE(NDK_OBJECT_HEADER_RESERVED_BLOCK, 0x20);
NDKSIM_ASSERT_OFFSET(NDK_OBJECT_HEADER_RESERVED_BLOCK, rf, 0x00);

NDKSIM_ASSERT_SIZE(NDK_OBJECT_HEADER, 0x28);
NDKSIM_ASSERT_OFFSET(NDK_OBJECT_HEADER, Version, 0x00);
NDKSIM_ASSERT_OFFSET(NDK_OBJECT_HEADER, ObjectType, 0x04);
NDKSIM_ASSERT_OFFSET(NDK_OBJECT_HEADER, NdkReserved, 0x08);

NDKSIM_ASSERT_SIZE(NDK_RESULT, 0x18);
NDKSIM_ASSERT_OFFSET(NDK_RESULT, Status, 0x00);
NDKSIM_ASSERT_OFFSET(NDK_RESULT, BytesTransferred, 0x04);
NDKSIM_ASSERT_OFFSET(NDK_RESULT, QPContext, 0x08);
NDKSIM_ASSERT_OFFSET(NDK_RESULT, RequestContext, 0x10);

NDKSIM_ASSERT_SIZE(NDK_RESULT_EX, 0x28);
NDKSIM_ASSERT_OFFSET(NDK_RESULT_EX, Status, 0x00);
NDKSIM_ASSERT_OFFSET(NDK_RESULT_EX, BytesTransferred, 0x04);
NDKSIM_ASSERT_OFFSET(NDK_RESULT_EX, QPContext, 0x08);
NDKSIM_ASSERT_OFFSET(NDK_RESULT_EX, RequestContext, 0x10);
NDKSIM_ASSERT_OFFSET(NDK_RESULT_EX, Type, 0x18);
NDKSIM_ASSERT_OFFSET(NDK_RESULT_EX, ProviderErrorCode, 0x1C);
NDKSIM_ASSERT_OFFSET(NDK_RESULT_EX, TypeSpecificCompletionOutput, 0x20);

NDKSIM_ASSERT_SIZE(NDK_LOGICAL_ADDRESS_MAPPING, 0x18); /**< with its one declared page */
NDKSIM_ASSERT_OFFSET(NDK_LOGICAL_ADDRESS_MAPPING, AdapterContext, 0x00);
NDKSIM_ASSERT_OFFSET(NDK_LOGICAL_ADDRESS_MAPPING, AdapterPageCount, 0x08);
NDKSIM_ASSERT_OFFSET(NDK_LOGICAL_ADDRESS_MAPPING, AdapterPageArray, 0x10);

NDKSIM_ASSERT_SIZE(NDK_EXTENSION_INTERFACE, 0x08);
NDKSIM_ASSERT_OFFSET(NDK_EXTENSION_INTERFACE, Dispatch, 0x00);

/** Every object is { Header, Dispatch }: 0x30 bytes with Dispatch at 0x28. */
#define NDKSIM_ASSERT_OBJECT_LAYOUT(type)     \
    NDKSIM_ASSERT_SIZE(type, 0x30);           \
    NDKSIM_ASSERT_OFFSET(type, Header, 0x00); \
    NDKSIM_ASSERT_OFFSET(type, Dispatch, 0x28)
NDKSIM_ASSERT_OBJECT_LAYOUT(NDK_ADAPTER);
NDKSIM_ASSERT_OBJECT_LAYOUT(NDK_CQ);
NDKSIM_ASSERT_OBJECT_LAYOUT(NDK_PD);
NDKSIM_ASSERT_OBJECT_LAYOUT(NDK_MR);
NDKSIM_ASSERT_OBJECT_LAYOUT(NDK_MW);
NDKSIM_ASSERT_OBJECT_LAYOUT(NDK_SRQ);
NDKSIM_ASSERT_OBJECT_LAYOUT(NDK_QP);
NDKSIM_ASSERT_OBJECT_LAYOUT(NDK_SHARED_ENDPOINT);
NDKSIM_ASSERT_OBJECT_LAYOUT(NDK_CONNECTOR);
NDKSIM_ASSERT_OBJECT_LAYOUT(NDK_LISTENER);

/** Dispatch tables: size and the offset of the last entry (REFERENCE.md 4). */
NDKSIM_ASSERT_SIZE(NDK_ADAPTER_DISPATCH, 0x48);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_DISPATCH, NdkQueryExtension, 0x00);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_DISPATCH, NdkReleaseLAM, 0x40);
NDKSIM_ASSERT_SIZE(NDK_CQ_DISPATCH, 0x38);
NDKSIM_ASSERT_OFFSET(NDK_CQ_DISPATCH, NdkGetCqResultsEx, 0x30);
NDKSIM_ASSERT_SIZE(NDK_PD_DISPATCH, 0x40);
NDKSIM_ASSERT_OFFSET(NDK_PD_DISPATCH, NdkGetPrivilegedMemoryRegionToken, 0x38);
NDKSIM_ASSERT_SIZE(NDK_MR_DISPATCH, 0x38);
NDKSIM_ASSERT_OFFSET(NDK_MR_DISPATCH, NdkGetLocalTokenFromMr, 0x30);
NDKSIM_ASSERT_SIZE(NDK_MW_DISPATCH, 0x18);
NDKSIM_ASSERT_OFFSET(NDK_MW_DISPATCH, NdkGetRemoteTokenFromMw, 0x10);
NDKSIM_ASSERT_SIZE(NDK_SRQ_DISPATCH, 0x20);
NDKSIM_ASSERT_OFFSET(NDK_SRQ_DISPATCH, NdkSrqReceive, 0x18);
NDKSIM_ASSERT_SIZE(NDK_QP_DISPATCH, 0x58);
NDKSIM_ASSERT_OFFSET(NDK_QP_DISPATCH, NdkSendAndInvalidate, 0x50);
NDKSIM_ASSERT_SIZE(NDK_SHARED_ENDPOINT_DISPATCH, 0x18);
NDKSIM_ASSERT_OFFSET(NDK_SHARED_ENDPOINT_DISPATCH, NdkGetLocalAddress, 0x10);
NDKSIM_ASSERT_SIZE(NDK_CONNECTOR_DISPATCH, 0x68);
NDKSIM_ASSERT_OFFSET(NDK_CONNECTOR_DISPATCH, NdkDisconnect, 0x50); /**< end of the 1.2 table */
NDKSIM_ASSERT_OFFSET(NDK_CONNECTOR_DISPATCH, NdkAcceptEx, 0x60);
NDKSIM_ASSERT_SIZE(NDK_LISTENER_DISPATCH, 0x28);
NDKSIM_ASSERT_OFFSET(NDK_LISTENER_DISPATCH, NdkControlConnectEvents, 0x20);
#endif /* NDKSIM_ABI_LAYOUT_CHECKS */

#ifdef __cplusplus
}
#endif
