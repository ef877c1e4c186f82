/* SPDX-License-Identifier: MIT */
/*
 * rsock_internal.h - the objects behind rsock.h and the helpers its files share.
 */
#pragma once

#include "rsock.h"

#include <netioapi.h>
#include <wsk.h>
#include <wskndk.h>

/* Receives kept posted on every socket, each RSOCK_MAX_MESSAGE bytes. */
#define RSOCK_RECEIVE_DEPTH 16
/* Initiator requests in flight per socket (sends, reads, writes, fast-registers, invalidates). */
#define RSOCK_INITIATOR_DEPTH 16
/* Pages of the LAM-mapped staging buffer RDMA reads and writes go through. */
#define RSOCK_STAGING_PAGES 4
/* Read limits offered when connecting and accepting. */
#define RSOCK_READ_LIMIT 4

/* How a completion's request context is told apart in the CQ worker. */
typedef enum _RSOCK_REQUEST_KIND { RsockKindWaiter = 1, RsockKindReceive = 2 } RSOCK_REQUEST_KIND;

/*
 * A pending NDK call (create, register, connect, close, ...) or a posted work request the caller
 * waits for. The NDK callback or the CQ worker fills Status and signals Done.
 */
typedef struct _RSOCK_REQUEST {
    RSOCK_REQUEST_KIND Kind;
    NTSTATUS Status;
    ULONG BytesTransferred;
    NDK_OBJECT_HEADER* Object;
    KEVENT Done;
} RSOCK_REQUEST, *PRSOCK_REQUEST;

/* One posted receive: a RSOCK_MAX_MESSAGE slot of the socket's registered buffer. */
typedef struct _RSOCK_RECEIVE {
    RSOCK_REQUEST_KIND Kind;
    ULONG Length;
    PUCHAR Data;
    LIST_ENTRY Link; /* on the socket's Ready list once it holds a message */
} RSOCK_RECEIVE, *PRSOCK_RECEIVE;

struct _RSOCK_ADAPTER {
    NDK_ADAPTER* Ndk;
    NDK_PD* Pd;
    UINT32 PrivilegedToken;
    ULONG Address; /* IPv4, network byte order */
    NET_IFINDEX IfIndex;
    ULONG MaxInlineData;
};

/* A connection request delivered by the listener's connect event, not yet accepted. */
typedef struct _RSOCK_INCOMING {
    LIST_ENTRY Link;
    NDK_CONNECTOR* Connector;
} RSOCK_INCOMING, *PRSOCK_INCOMING;

struct _RSOCK_LISTENER {
    PRSOCK_ADAPTER Adapter;
    NDK_LISTENER* Ndk;
    KSPIN_LOCK Lock; /* guards Incoming and Closing; taken at DISPATCH_LEVEL by the callback */
    LIST_ENTRY Incoming;
    BOOLEAN Closing;
    KEVENT Arrived; /* synchronization event: a request was queued */
};

/* A logical address mapping of pool memory. */
typedef struct _RSOCK_MAPPING {
    PUCHAR Buffer;
    ULONG Length;
    PMDL Mdl;
    NDK_LOGICAL_ADDRESS_MAPPING* Lam;
    ULONG Fbo;
} RSOCK_MAPPING, *PRSOCK_MAPPING;

struct _RSOCK_REGION {
    RSOCK_MAPPING Mapping;
    NDK_MR* Mr;
    UINT64 BaseAddress;
    BOOLEAN Valid;
};

struct _RSOCK_SOCKET {
    PRSOCK_ADAPTER Adapter;
    NDK_CQ* Cq;
    NDK_QP* Qp;
    NDK_CONNECTOR* Connector;
    BOOLEAN Connected;

    /* Send and receive slots: RSOCK_RECEIVE_DEPTH receive slots, then one send slot. */
    PUCHAR Buffer;
    PMDL BufferMdl;
    NDK_MR* BufferMr;
    UINT32 BufferToken;
    BOOLEAN BufferRegistered;
    RSOCK_RECEIVE Receives[RSOCK_RECEIVE_DEPTH];
    volatile LONG ReceivesPosted;
    KEVENT ReceivesIdle; /* notification: set when ReceivesPosted drops to zero */
    KEVENT SendSlotFree; /* synchronization event used as a lock over the send slot */

    /* RDMA reads and writes go through this LAM-mapped buffer, with the privileged token. */
    RSOCK_MAPPING Staging;
    KEVENT StagingFree; /* synchronization event used as a lock over the staging buffer */

    /* Completions: the CQ callback queues Worker, which drains the CQ at PASSIVE_LEVEL. */
    PIO_WORKITEM Worker;
    volatile LONG Notifications;
    EX_RUNDOWN_REF Rundown; /* held by each queued worker; waited for before freeing */

    KSPIN_LOCK Lock; /* guards Ready; in-stack queued acquisitions only */
    LIST_ENTRY Ready;
    KEVENT Readable; /* synchronization: a message arrived or the peer left */
    volatile LONG PeerGone;
};

/* The device object work items are queued against (created by RsockStartup). */
extern PDEVICE_OBJECT RsockDevice;
/* The NDK extension of the WSK provider, filled by RsockStartup. */
extern WSK_PROVIDER_NDK_DISPATCH RsockNdk;
/* The WSK client the NDK extension's calls name. */
extern PWSK_CLIENT RsockWskClient;

/* Readies a request for one NDK call. */
VOID RsockRequestInit(_Out_ PRSOCK_REQUEST Request);

/*
 * The status of a call that took Request: Returned itself unless it is STATUS_PENDING, in which
 * case the caller waits for the completion callback. PASSIVE_LEVEL.
 */
NTSTATUS RsockRequestWait(_Inout_ PRSOCK_REQUEST Request, _In_ NTSTATUS Returned);

/* NDK completion callbacks whose context is a PRSOCK_REQUEST. */
VOID RsockCreateDone(_In_opt_ PVOID Context, _In_ NTSTATUS Status, _In_ NDK_OBJECT_HEADER* Object);
VOID RsockRequestDone(_In_opt_ PVOID Context, _In_ NTSTATUS Status);

/* Closes any NDK object and waits for its close completion. PASSIVE_LEVEL. */
VOID RsockCloseObject(_In_opt_ NDK_OBJECT_HEADER* Object);

/* Maps Length bytes of fresh nonpaged pool on the adapter. */
NTSTATUS RsockMap(_In_ PRSOCK_ADAPTER Adapter, _In_ ULONG Length, _Out_ PRSOCK_MAPPING Mapping);

/* Releases what RsockMap built (safe on a zeroed mapping). */
VOID RsockUnmap(_In_ PRSOCK_ADAPTER Adapter, _Inout_ PRSOCK_MAPPING Mapping);

/* Creates a socket's CQ, QP, buffers and receive pool (no connection yet). */
NTSTATUS RsockSocketCreate(_In_ PRSOCK_ADAPTER Adapter, _Outptr_ PRSOCK_SOCKET* Socket);

/* The disconnect event callback of a socket's connector. */
VOID RsockPeerDisconnected(_In_opt_ PVOID Context);

/*
 * The status of a work request posted with Request as its context: Posted if the post failed,
 * otherwise the completion's status once the CQ worker has seen it. PASSIVE_LEVEL.
 */
NTSTATUS RsockPostAndWait(_In_ PRSOCK_SOCKET Socket, _Inout_ PRSOCK_REQUEST Request,
                          _In_ NTSTATUS Posted);

/* A sockaddr for Address (network order) and Port (host order). */
VOID RsockMakeAddress(_Out_ PSOCKADDR_IN Sockaddr, _In_ ULONG Address, _In_ USHORT Port);

/* The CQ notification callback of every socket (rsock_completion.c). */
VOID RsockCqNotification(_In_opt_ PVOID Context, _In_ NTSTATUS CqStatus);

/* Posts receive slot Index of the socket. */
NTSTATUS RsockPostReceive(_In_ PRSOCK_SOCKET Socket, _In_ ULONG Index);
