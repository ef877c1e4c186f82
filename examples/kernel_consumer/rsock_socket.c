/* SPDX-License-Identifier: MIT */
/*
 * rsock_socket.c - a connected queue pair with a pool of posted receives: creating it, sending
 * and receiving messages, and closing it in the order NDK requires.
 */
#include "rsock_internal.h"

#define RSOCK_BUFFER_SIZE ((RSOCK_RECEIVE_DEPTH + 1) * RSOCK_MAX_MESSAGE)
#define RSOCK_SEND_SLOT (RSOCK_RECEIVE_DEPTH * RSOCK_MAX_MESSAGE)

static NTSTATUS RsockCreate(_Inout_ PRSOCK_REQUEST Request, _In_ NTSTATUS Returned,
                            _Inout_ NDK_OBJECT_HEADER** Object) {
    NTSTATUS status = RsockRequestWait(Request, Returned);
    if (NT_SUCCESS(status) && *Object == NULL) {
        *Object = Request->Object;
    }
    return status;
}

NTSTATUS RsockPostReceive(_In_ PRSOCK_SOCKET Socket, _In_ ULONG Index) {
    NDK_SGE sge;
    NTSTATUS status;
    RtlZeroMemory(&sge, sizeof(sge));
    sge.VirtualAddress = Socket->Receives[Index].Data;
    sge.Length = RSOCK_MAX_MESSAGE;
    sge.MemoryRegionToken = Socket->BufferToken;
    InterlockedIncrement(&Socket->ReceivesPosted);
    status = Socket->Qp->Dispatch->NdkReceive(Socket->Qp, &Socket->Receives[Index], &sge, 1);
    if (!NT_SUCCESS(status)) {
        InterlockedDecrement(&Socket->ReceivesPosted);
    }
    return status;
}

/* Registers the socket's send and receive slots as a normal memory region. */
static NTSTATUS RsockRegisterBuffer(_In_ PRSOCK_SOCKET Socket) {
    PRSOCK_ADAPTER adapter = Socket->Adapter;
    RSOCK_REQUEST request;
    NTSTATUS status;

    Socket->Buffer =
        (PUCHAR)ExAllocatePool2(POOL_FLAG_NON_PAGED, RSOCK_BUFFER_SIZE, RSOCK_POOL_TAG);
    if (Socket->Buffer == NULL) {
        return STATUS_INSUFFICIENT_RESOURCES;
    }
    Socket->BufferMdl = IoAllocateMdl(Socket->Buffer, RSOCK_BUFFER_SIZE, FALSE, FALSE, NULL);
    if (Socket->BufferMdl == NULL) {
        return STATUS_INSUFFICIENT_RESOURCES;
    }
    MmBuildMdlForNonPagedPool(Socket->BufferMdl);
    RsockRequestInit(&request);
    status = RsockCreate(&request,
                         adapter->Pd->Dispatch->NdkCreateMr(adapter->Pd, FALSE, RsockCreateDone,
                                                            &request, &Socket->BufferMr),
                         (NDK_OBJECT_HEADER**)&Socket->BufferMr);
    if (!NT_SUCCESS(status)) {
        return status;
    }
    RsockRequestInit(&request);
    status = Socket->BufferMr->Dispatch->NdkRegisterMr(
        Socket->BufferMr, Socket->BufferMdl, RSOCK_BUFFER_SIZE, NDK_MR_FLAG_ALLOW_LOCAL_WRITE,
        RsockRequestDone, &request);
    status = RsockRequestWait(&request, status);
    if (NT_SUCCESS(status)) {
        Socket->BufferRegistered = TRUE;
        Socket->BufferToken = Socket->BufferMr->Dispatch->NdkGetLocalTokenFromMr(Socket->BufferMr);
    }
    return status;
}

NTSTATUS RsockSocketCreate(_In_ PRSOCK_ADAPTER Adapter, _Outptr_ PRSOCK_SOCKET* Socket) {
    PRSOCK_SOCKET socket;
    RSOCK_REQUEST request;
    NTSTATUS status;
    ULONG i;
    PAGED_CODE();

    *Socket = NULL;
    socket = (PRSOCK_SOCKET)ExAllocatePool2(POOL_FLAG_NON_PAGED, sizeof(*socket), RSOCK_POOL_TAG);
    if (socket == NULL) {
        return STATUS_INSUFFICIENT_RESOURCES;
    }
    socket->Adapter = Adapter;
    KeInitializeSpinLock(&socket->Lock);
    InitializeListHead(&socket->Ready);
    KeInitializeEvent(&socket->Readable, SynchronizationEvent, FALSE);
    KeInitializeEvent(&socket->ReceivesIdle, NotificationEvent, FALSE);
    KeInitializeEvent(&socket->SendSlotFree, SynchronizationEvent, TRUE);
    KeInitializeEvent(&socket->StagingFree, SynchronizationEvent, TRUE);
    ExInitializeRundownProtection(&socket->Rundown);
    socket->Worker = IoAllocateWorkItem(RsockDevice);
    if (socket->Worker == NULL) {
        RsockClose(socket);
        return STATUS_INSUFFICIENT_RESOURCES;
    }

    RsockRequestInit(&request);
    status =
        RsockCreate(&request,
                    Adapter->Ndk->Dispatch->NdkCreateCq(
                        Adapter->Ndk, RSOCK_RECEIVE_DEPTH + RSOCK_INITIATOR_DEPTH,
                        RsockCqNotification, socket, NULL, RsockCreateDone, &request, &socket->Cq),
                    (NDK_OBJECT_HEADER**)&socket->Cq);
    if (NT_SUCCESS(status)) {
        RsockRequestInit(&request);
        status = RsockCreate(
            &request,
            Adapter->Pd->Dispatch->NdkCreateQp(Adapter->Pd, socket->Cq, socket->Cq, socket,
                                               RSOCK_RECEIVE_DEPTH, RSOCK_INITIATOR_DEPTH, 1,
                                               RSOCK_STAGING_PAGES, min(Adapter->MaxInlineData, 64),
                                               RsockCreateDone, &request, &socket->Qp),
            (NDK_OBJECT_HEADER**)&socket->Qp);
    }
    if (NT_SUCCESS(status)) {
        status = RsockRegisterBuffer(socket);
    }
    if (NT_SUCCESS(status)) {
        status = RsockMap(Adapter, RSOCK_STAGING_PAGES * PAGE_SIZE, &socket->Staging);
    }
    if (!NT_SUCCESS(status)) {
        RsockClose(socket);
        return status;
    }
    socket->Cq->Dispatch->NdkArmCq(socket->Cq, NDK_CQ_NOTIFY_ANY);
    for (i = 0; i < RSOCK_RECEIVE_DEPTH; ++i) {
        socket->Receives[i].Kind = RsockKindReceive;
        socket->Receives[i].Data = socket->Buffer + i * RSOCK_MAX_MESSAGE;
        status = RsockPostReceive(socket, i);
        if (!NT_SUCCESS(status)) {
            RsockClose(socket);
            return status;
        }
    }
    *Socket = socket;
    return STATUS_SUCCESS;
}

_Use_decl_annotations_ VOID RsockPeerDisconnected(PVOID Context) {
    PRSOCK_SOCKET socket = (PRSOCK_SOCKET)Context;
    InterlockedExchange(&socket->PeerGone, 1);
    KeSetEvent(&socket->Readable, IO_NO_INCREMENT, FALSE);
}

NTSTATUS RsockSend(_In_ PRSOCK_SOCKET Socket, _In_reads_bytes_(Length) const VOID* Data,
                   _In_ ULONG Length) {
    RSOCK_REQUEST request;
    NDK_SGE sge;
    NTSTATUS status;
    PAGED_CODE();
    if (Length > RSOCK_MAX_MESSAGE) {
        return STATUS_INVALID_BUFFER_SIZE;
    }
    KeWaitForSingleObject(&Socket->SendSlotFree, Executive, KernelMode, FALSE, NULL);
    RtlCopyMemory(Socket->Buffer + RSOCK_SEND_SLOT, Data, Length);
    RtlZeroMemory(&sge, sizeof(sge));
    sge.VirtualAddress = Socket->Buffer + RSOCK_SEND_SLOT;
    sge.Length = Length;
    sge.MemoryRegionToken = Socket->BufferToken;
    RsockRequestInit(&request);
    status = RsockPostAndWait(Socket, &request,
                              Socket->Qp->Dispatch->NdkSend(Socket->Qp, &request, &sge, 1, 0));
    KeSetEvent(&Socket->SendSlotFree, IO_NO_INCREMENT, FALSE);
    return status;
}

NTSTATUS RsockReceive(_In_ PRSOCK_SOCKET Socket, _Out_writes_bytes_(Length) VOID* Buffer,
                      _In_ ULONG Length, _Out_ ULONG* Received, _In_ ULONG TimeoutMs) {
    LARGE_INTEGER timeout;
    KLOCK_QUEUE_HANDLE lock;
    PRSOCK_RECEIVE receive = NULL;
    NTSTATUS status;
    PAGED_CODE();

    *Received = 0;
    timeout.QuadPart = -10000LL * TimeoutMs; /* relative, in 100 ns units */
    for (;;) {
        KeAcquireInStackQueuedSpinLock(&Socket->Lock, &lock);
        if (!IsListEmpty(&Socket->Ready)) {
            receive = CONTAINING_RECORD(RemoveHeadList(&Socket->Ready), RSOCK_RECEIVE, Link);
        }
        KeReleaseInStackQueuedSpinLock(&lock);
        if (receive != NULL) {
            break;
        }
        if (ReadAcquire(&Socket->PeerGone) != 0) {
            return STATUS_CONNECTION_DISCONNECTED;
        }
        status = KeWaitForSingleObject(&Socket->Readable, Executive, KernelMode, FALSE, &timeout);
        if (status == STATUS_TIMEOUT) {
            return STATUS_TIMEOUT;
        }
    }
    if (receive->Length > Length) {
        status = STATUS_BUFFER_OVERFLOW;
    } else {
        RtlCopyMemory(Buffer, receive->Data, receive->Length);
        *Received = receive->Length;
        status = STATUS_SUCCESS;
    }
    /* The slot goes back to the receive queue; after a disconnect the post may be refused. */
    RsockPostReceive(Socket, (ULONG)(receive - Socket->Receives));
    return status;
}

VOID RsockClose(_In_ PRSOCK_SOCKET Socket) {
    PRSOCK_ADAPTER adapter = Socket->Adapter;
    RSOCK_REQUEST request;
    NTSTATUS status;
    PAGED_CODE();

    if (Socket->Connected) {
        RsockRequestInit(&request);
        status = Socket->Connector->Dispatch->NdkDisconnect(Socket->Connector, RsockRequestDone,
                                                            &request);
        status = RsockRequestWait(&request, status);
        KdPrint(("rsock: disconnect completed with %#x\n", (unsigned)status));
        Socket->Connected = FALSE;
    }
    if (Socket->Qp != NULL) {
        /* Flushing completes every posted receive with STATUS_CANCELLED; the worker counts them
         * down before the QP and then the CQ may go. */
        KeClearEvent(&Socket->ReceivesIdle);
        Socket->Qp->Dispatch->NdkFlush(Socket->Qp);
        if (ReadAcquire(&Socket->ReceivesPosted) != 0) {
            KeWaitForSingleObject(&Socket->ReceivesIdle, Executive, KernelMode, FALSE, NULL);
        }
    }
    RsockCloseObject(Socket->Connector ? &Socket->Connector->Header : NULL);
    RsockCloseObject(Socket->Qp ? &Socket->Qp->Header : NULL);
    /* No worker may touch the CQ once it is closed. */
    ExWaitForRundownProtectionRelease(&Socket->Rundown);
    RsockCloseObject(Socket->Cq ? &Socket->Cq->Header : NULL);
    if (Socket->Worker != NULL) {
        IoFreeWorkItem(Socket->Worker);
    }
    if (Socket->BufferMr != NULL) {
        if (Socket->BufferRegistered) {
            RsockRequestInit(&request);
            status = Socket->BufferMr->Dispatch->NdkDeregisterMr(Socket->BufferMr, RsockRequestDone,
                                                                 &request);
            NT_VERIFY(NT_SUCCESS(RsockRequestWait(&request, status)));
        }
        RsockCloseObject(&Socket->BufferMr->Header);
    }
    RsockUnmap(adapter, &Socket->Staging);
    if (Socket->BufferMdl != NULL) {
        IoFreeMdl(Socket->BufferMdl);
    }
    if (Socket->Buffer != NULL) {
        ExFreePoolWithTag(Socket->Buffer, RSOCK_POOL_TAG);
    }
    ExFreePoolWithTag(Socket, RSOCK_POOL_TAG);
}
