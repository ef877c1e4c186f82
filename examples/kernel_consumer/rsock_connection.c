/* SPDX-License-Identifier: MIT */
/*
 * rsock_connection.c - establishing connections: listening and accepting on one side,
 * connecting on the other.
 *
 * The listener's connect event arrives at DISPATCH_LEVEL with a new connector. The callback may
 * neither block nor create the queue pair the accept needs, so it queues the connector under an
 * in-stack queued spin lock and wakes RsockAccept, which does the rest at PASSIVE_LEVEL.
 */
#include "rsock_internal.h"

#ifdef ALLOC_PRAGMA
#pragma alloc_text(PAGE, RsockListen)
#pragma alloc_text(PAGE, RsockAccept)
#pragma alloc_text(PAGE, RsockConnect)
#pragma alloc_text(PAGE, RsockCloseListener)
#endif

/* Close completion of a connector turned down inside the connect event: nothing to wake. */
static VOID RsockForgetConnector(_In_opt_ PVOID Context) {
    UNREFERENCED_PARAMETER(Context);
}

/* NDK_FN_CONNECT_EVENT_CALLBACK: DISPATCH_LEVEL. */
static VOID RsockConnectEvent(_In_opt_ PVOID Context, _In_ NDK_CONNECTOR* Connector) {
    PRSOCK_LISTENER listener = (PRSOCK_LISTENER)Context;
    KLOCK_QUEUE_HANDLE lock;
    PRSOCK_INCOMING incoming =
        (PRSOCK_INCOMING)ExAllocatePool2(POOL_FLAG_NON_PAGED, sizeof(*incoming), RSOCK_POOL_TAG);
    if (incoming == NULL) {
        /* No memory to remember it: turn the request down now (Reject never pends). */
        Connector->Dispatch->NdkReject(Connector, NULL, 0);
        Connector->Dispatch->NdkCloseConnector(&Connector->Header, RsockForgetConnector, NULL);
        return;
    }
    incoming->Connector = Connector;
    KeAcquireInStackQueuedSpinLock(&listener->Lock, &lock);
    InsertTailList(&listener->Incoming, &incoming->Link);
    KeReleaseInStackQueuedSpinLock(&lock);
    KeSetEvent(&listener->Arrived, IO_NO_INCREMENT, FALSE);
}

NTSTATUS RsockListen(_In_ PRSOCK_ADAPTER Adapter, _In_ USHORT Port,
                     _Outptr_ PRSOCK_LISTENER* Listener) {
    PRSOCK_LISTENER listener;
    RSOCK_REQUEST request;
    SOCKADDR_IN address;
    NTSTATUS status;
    PAGED_CODE();

    *Listener = NULL;
    listener =
        (PRSOCK_LISTENER)ExAllocatePool2(POOL_FLAG_NON_PAGED, sizeof(*listener), RSOCK_POOL_TAG);
    if (listener == NULL) {
        return STATUS_INSUFFICIENT_RESOURCES;
    }
    listener->Adapter = Adapter;
    KeInitializeSpinLock(&listener->Lock);
    InitializeListHead(&listener->Incoming);
    KeInitializeEvent(&listener->Arrived, SynchronizationEvent, FALSE);

    RsockRequestInit(&request);
    status = Adapter->Ndk->Dispatch->NdkCreateListener(Adapter->Ndk, RsockConnectEvent, listener,
                                                       RsockCreateDone, &request, &listener->Ndk);
    status = RsockRequestWait(&request, status);
    if (NT_SUCCESS(status) && listener->Ndk == NULL) {
        listener->Ndk = (NDK_LISTENER*)request.Object;
    }
    if (NT_SUCCESS(status)) {
        RsockMakeAddress(&address, Adapter->Address, Port);
        RsockRequestInit(&request);
        status = listener->Ndk->Dispatch->NdkListen(listener->Ndk, (PSOCKADDR)&address,
                                                    sizeof(address), RsockRequestDone, &request);
        status = RsockRequestWait(&request, status);
    }
    if (!NT_SUCCESS(status)) {
        RsockCloseListener(listener);
        return status;
    }
    *Listener = listener;
    return STATUS_SUCCESS;
}

NTSTATUS RsockAccept(_In_ PRSOCK_LISTENER Listener, _In_ ULONG TimeoutMs,
                     _Outptr_ PRSOCK_SOCKET* Socket) {
    LARGE_INTEGER timeout;
    KLOCK_QUEUE_HANDLE lock;
    PRSOCK_INCOMING incoming = NULL;
    PRSOCK_SOCKET socket;
    RSOCK_REQUEST request;
    NTSTATUS status;
    PAGED_CODE();

    *Socket = NULL;
    timeout.QuadPart = -10000LL * TimeoutMs;
    while (incoming == NULL) {
        KeAcquireInStackQueuedSpinLock(&Listener->Lock, &lock);
        if (!IsListEmpty(&Listener->Incoming)) {
            incoming = CONTAINING_RECORD(RemoveHeadList(&Listener->Incoming), RSOCK_INCOMING, Link);
        }
        KeReleaseInStackQueuedSpinLock(&lock);
        if (incoming == NULL && KeWaitForSingleObject(&Listener->Arrived, Executive, KernelMode,
                                                      FALSE, &timeout) == STATUS_TIMEOUT) {
            return STATUS_TIMEOUT;
        }
    }

    status = RsockSocketCreate(Listener->Adapter, &socket);
    if (!NT_SUCCESS(status)) {
        incoming->Connector->Dispatch->NdkReject(incoming->Connector, NULL, 0);
        RsockCloseObject(&incoming->Connector->Header);
        ExFreePoolWithTag(incoming, RSOCK_POOL_TAG);
        return status;
    }
    socket->Connector = incoming->Connector;
    ExFreePoolWithTag(incoming, RSOCK_POOL_TAG);

    RsockRequestInit(&request);
    status = socket->Connector->Dispatch->NdkAccept(
        socket->Connector, socket->Qp, RSOCK_READ_LIMIT, RSOCK_READ_LIMIT, NULL, 0,
        RsockPeerDisconnected, socket, RsockRequestDone, &request);
    status = RsockRequestWait(&request, status);
    if (!NT_SUCCESS(status)) {
        RsockClose(socket);
        return status;
    }
    socket->Connected = TRUE;
    *Socket = socket;
    return STATUS_SUCCESS;
}

VOID RsockCloseListener(_In_ PRSOCK_LISTENER Listener) {
    KLOCK_QUEUE_HANDLE lock;
    PRSOCK_INCOMING incoming;
    PAGED_CODE();

    /* After the close completes no connect event can arrive, so the queue is final. */
    RsockCloseObject(Listener->Ndk ? &Listener->Ndk->Header : NULL);
    for (;;) {
        incoming = NULL;
        KeAcquireInStackQueuedSpinLock(&Listener->Lock, &lock);
        if (!IsListEmpty(&Listener->Incoming)) {
            incoming = CONTAINING_RECORD(RemoveHeadList(&Listener->Incoming), RSOCK_INCOMING, Link);
        }
        KeReleaseInStackQueuedSpinLock(&lock);
        if (incoming == NULL) {
            break;
        }
        incoming->Connector->Dispatch->NdkReject(incoming->Connector, NULL, 0);
        RsockCloseObject(&incoming->Connector->Header);
        ExFreePoolWithTag(incoming, RSOCK_POOL_TAG);
    }
    ExFreePoolWithTag(Listener, RSOCK_POOL_TAG);
}

NTSTATUS RsockConnect(_In_ PRSOCK_ADAPTER Adapter, _In_ ULONG Address, _In_ USHORT Port,
                      _Outptr_ PRSOCK_SOCKET* Socket) {
    PRSOCK_SOCKET socket;
    RSOCK_REQUEST request;
    SOCKADDR_IN local;
    SOCKADDR_IN remote;
    NTSTATUS status;
    PAGED_CODE();

    *Socket = NULL;
    status = RsockSocketCreate(Adapter, &socket);
    if (!NT_SUCCESS(status)) {
        return status;
    }
    RsockRequestInit(&request);
    status = Adapter->Ndk->Dispatch->NdkCreateConnector(Adapter->Ndk, RsockCreateDone, &request,
                                                        &socket->Connector);
    status = RsockRequestWait(&request, status);
    if (NT_SUCCESS(status) && socket->Connector == NULL) {
        socket->Connector = (NDK_CONNECTOR*)request.Object;
    }
    if (NT_SUCCESS(status)) {
        RsockMakeAddress(&local, Adapter->Address, 0);
        RsockMakeAddress(&remote, Address, Port);
        RsockRequestInit(&request);
        status = socket->Connector->Dispatch->NdkConnect(
            socket->Connector, socket->Qp, (PSOCKADDR)&local, sizeof(local), (PSOCKADDR)&remote,
            sizeof(remote), RSOCK_READ_LIMIT, RSOCK_READ_LIMIT, NULL, 0, RsockRequestDone,
            &request);
        status = RsockRequestWait(&request, status);
    }
    if (NT_SUCCESS(status)) {
        RsockRequestInit(&request);
        status = socket->Connector->Dispatch->NdkCompleteConnect(
            socket->Connector, RsockPeerDisconnected, socket, RsockRequestDone, &request);
        status = RsockRequestWait(&request, status);
    }
    if (!NT_SUCCESS(status)) {
        RsockClose(socket);
        return status;
    }
    socket->Connected = TRUE;
    *Socket = socket;
    return STATUS_SUCCESS;
}
