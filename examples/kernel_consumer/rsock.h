/* SPDX-License-Identifier: MIT */
/*
 * rsock.h - "RDMA sockets": a small kernel-mode transport over NDK, written the way a Windows
 * driver writes one (an SMB-Direct-like layer in miniature). It finds adapters through WSK's NDK
 * extension, connects queue pairs through listeners and connectors, keeps a pool of posted
 * receives, sends messages, exposes memory to the peer by fast-registering logical address
 * mappings, reads and writes the peer's memory, and tears everything down in order.
 *
 * Every routine here runs at PASSIVE_LEVEL and may wait. Completions arrive in CQ notification
 * callbacks at DISPATCH_LEVEL, which only queue a work item; the work item drains the CQ at
 * PASSIVE_LEVEL and wakes the waiter of each request through a KEVENT.
 */
#pragma once

#include <ndis.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Pool tag of every allocation of this layer ("RSck" in a pool dump). */
#define RSOCK_POOL_TAG 'kcSR'

/* Largest message RsockSend and RsockReceive carry. */
#define RSOCK_MAX_MESSAGE 1024

typedef struct _RSOCK_ADAPTER RSOCK_ADAPTER, *PRSOCK_ADAPTER;
typedef struct _RSOCK_LISTENER RSOCK_LISTENER, *PRSOCK_LISTENER;
typedef struct _RSOCK_SOCKET RSOCK_SOCKET, *PRSOCK_SOCKET;
typedef struct _RSOCK_REGION RSOCK_REGION, *PRSOCK_REGION;

/* What a peer needs to reach a registered region: its base address, token and length. */
typedef struct _RSOCK_REGION_DESCRIPTOR {
    UINT64 Address;
    UINT32 Token;
    ULONG Length;
} RSOCK_REGION_DESCRIPTOR, *PRSOCK_REGION_DESCRIPTOR;

/* Registers with WSK and obtains its NDK extension. Call once, from DriverEntry. */
NTSTATUS RsockStartup(_In_ PDRIVER_OBJECT DriverObject);

/* Releases the WSK provider and deregisters. Call from DriverUnload, after every close. */
VOID RsockShutdown(VOID);

/*
 * Opens the NDK adapter that owns the IPv4 address Address (network byte order), looked up in the
 * unicast address table, and creates its protection domain.
 */
NTSTATUS RsockOpenAdapter(_In_ ULONG Address, _Outptr_ PRSOCK_ADAPTER* Adapter);

/* Closes an adapter; its listeners and sockets must be closed first. */
VOID RsockCloseAdapter(_In_ PRSOCK_ADAPTER Adapter);

/* Listens on the adapter's address at Port (host byte order). */
NTSTATUS RsockListen(_In_ PRSOCK_ADAPTER Adapter, _In_ USHORT Port,
                     _Outptr_ PRSOCK_LISTENER* Listener);

/* Waits up to TimeoutMs for a connection request and accepts it into a new socket. */
NTSTATUS RsockAccept(_In_ PRSOCK_LISTENER Listener, _In_ ULONG TimeoutMs,
                     _Outptr_ PRSOCK_SOCKET* Socket);

/* Stops listening and rejects requests not yet accepted. */
VOID RsockCloseListener(_In_ PRSOCK_LISTENER Listener);

/* Connects to Address:Port (network byte order address, host byte order port). */
NTSTATUS RsockConnect(_In_ PRSOCK_ADAPTER Adapter, _In_ ULONG Address, _In_ USHORT Port,
                      _Outptr_ PRSOCK_SOCKET* Socket);

/* Sends Length (<= RSOCK_MAX_MESSAGE) bytes and waits for the send's completion. */
NTSTATUS RsockSend(_In_ PRSOCK_SOCKET Socket, _In_reads_bytes_(Length) const VOID* Data,
                   _In_ ULONG Length);

/*
 * Waits up to TimeoutMs for the next message and copies it to Buffer. STATUS_TIMEOUT when none
 * came; STATUS_CONNECTION_DISCONNECTED once the peer has disconnected and nothing is left.
 */
NTSTATUS RsockReceive(_In_ PRSOCK_SOCKET Socket, _Out_writes_bytes_(Length) VOID* Buffer,
                      _In_ ULONG Length, _Out_ ULONG* Received, _In_ ULONG TimeoutMs);

/*
 * Allocates Length bytes of nonpaged pool, maps them with a logical address mapping and
 * fast-registers them on the socket's queue pair with remote read and write access.
 */
NTSTATUS RsockRegisterRegion(_In_ PRSOCK_SOCKET Socket, _In_ ULONG Length,
                             _Outptr_ PRSOCK_REGION* Region,
                             _Out_ PRSOCK_REGION_DESCRIPTOR Descriptor);

/* The region's memory. */
PVOID RsockRegionBuffer(_In_ PRSOCK_REGION Region);

/* Invalidates the region's token through the socket's queue pair: the peer loses access. */
NTSTATUS RsockInvalidateRegion(_In_ PRSOCK_SOCKET Socket, _In_ PRSOCK_REGION Region);

/* Releases a region (invalidated or not) of a socket that is still open. */
VOID RsockFreeRegion(_In_ PRSOCK_SOCKET Socket, _In_ PRSOCK_REGION Region);

/*
 * RDMA write of Length bytes from Data to the peer's region at Offset, staged through a
 * LAM-mapped buffer addressed with the protection domain's privileged token.
 */
NTSTATUS RsockWrite(_In_ PRSOCK_SOCKET Socket, _In_reads_bytes_(Length) const VOID* Data,
                    _In_ ULONG Length, _In_ const RSOCK_REGION_DESCRIPTOR* Remote,
                    _In_ ULONG Offset);

/* RDMA read of Length bytes of the peer's region at Offset into Data. */
NTSTATUS RsockRead(_In_ PRSOCK_SOCKET Socket, _Out_writes_bytes_(Length) VOID* Data,
                   _In_ ULONG Length, _In_ const RSOCK_REGION_DESCRIPTOR* Remote,
                   _In_ ULONG Offset);

/* Disconnects (if still connected), flushes the queue pair and frees the socket. */
VOID RsockClose(_In_ PRSOCK_SOCKET Socket);

#ifdef __cplusplus
}
#endif
