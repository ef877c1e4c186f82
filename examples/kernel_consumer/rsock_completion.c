/* SPDX-License-Identifier: MIT */
/*
 * rsock_completion.c - draining a socket's completion queue.
 *
 * The CQ notification callback runs at DISPATCH_LEVEL, where nothing may block, so it only
 * queues the socket's work item. The work item drains the CQ at PASSIVE_LEVEL, re-arms it, and
 * drains once more: a completion that arrived between the last poll and the arm would otherwise
 * wait for the next one (NDKPI: arm, then poll again). Notifications counts the callbacks not yet
 * served, so that exactly one worker drains at a time and none is lost: the callback queues the
 * work item only on the 0 -> 1 transition, and the worker repeats until it has served them all.
 */
#include "rsock_internal.h"

#define RSOCK_RESULTS_PER_POLL 8

/* Hands one completion to whoever waits for it. */
static VOID RsockComplete(_In_ PRSOCK_SOCKET Socket, _In_ const NDK_RESULT* Result) {
    RSOCK_REQUEST_KIND kind = *(const RSOCK_REQUEST_KIND*)Result->RequestContext;
    KLOCK_QUEUE_HANDLE lock;

    if (kind == RsockKindWaiter) {
        PRSOCK_REQUEST request = (PRSOCK_REQUEST)Result->RequestContext;
        request->BytesTransferred = Result->BytesTransferred;
        request->Status = Result->Status;
        KeSetEvent(&request->Done, IO_NO_INCREMENT, FALSE);
        return;
    }

    /* A receive: a message for RsockReceive, or a flushed receive at close. */
    {
        PRSOCK_RECEIVE receive = (PRSOCK_RECEIVE)Result->RequestContext;
        if (Result->Status == STATUS_SUCCESS) {
            receive->Length = Result->BytesTransferred;
            KeAcquireInStackQueuedSpinLock(&Socket->Lock, &lock);
            InsertTailList(&Socket->Ready, &receive->Link);
            KeReleaseInStackQueuedSpinLock(&lock);
            KeSetEvent(&Socket->Readable, IO_NO_INCREMENT, FALSE);
        }
        if (InterlockedDecrement(&Socket->ReceivesPosted) == 0) {
            KeSetEvent(&Socket->ReceivesIdle, IO_NO_INCREMENT, FALSE);
        }
    }
}

static ULONG RsockDrain(_In_ PRSOCK_SOCKET Socket) {
    NDK_RESULT results[RSOCK_RESULTS_PER_POLL];
    ULONG total = 0;
    ULONG count;
    ULONG i;
    do {
        count = Socket->Cq->Dispatch->NdkGetCqResults(Socket->Cq, results, RSOCK_RESULTS_PER_POLL);
        for (i = 0; i < count; ++i) {
            RsockComplete(Socket, &results[i]);
        }
        total += count;
    } while (count == RSOCK_RESULTS_PER_POLL);
    return total;
}

static IO_WORKITEM_ROUTINE RsockCqWorker;

static VOID RsockCqWorker(_In_ PDEVICE_OBJECT DeviceObject, _In_opt_ PVOID Context) {
    PRSOCK_SOCKET socket = (PRSOCK_SOCKET)Context;
    LONG served;
    UNREFERENCED_PARAMETER(DeviceObject);
    NT_ASSERT(KeGetCurrentIrql() == PASSIVE_LEVEL);
    do {
        served = ReadAcquire(&socket->Notifications);
        RsockDrain(socket);
        socket->Cq->Dispatch->NdkArmCq(socket->Cq, NDK_CQ_NOTIFY_ANY);
        RsockDrain(socket);
    } while (InterlockedAdd(&socket->Notifications, -served) != 0);
    ExReleaseRundownProtection(&socket->Rundown);
}

/* NDK_FN_CQ_NOTIFICATION_CALLBACK: DISPATCH_LEVEL, must not block. */
VOID RsockCqNotification(_In_opt_ PVOID Context, _In_ NTSTATUS CqStatus) {
    PRSOCK_SOCKET socket = (PRSOCK_SOCKET)Context;
    UNREFERENCED_PARAMETER(CqStatus);
    if (InterlockedIncrement(&socket->Notifications) != 1) {
        return; /* the running worker serves this one too */
    }
    if (!ExAcquireRundownProtection(&socket->Rundown)) {
        return; /* the socket is closing; its close drains what is left */
    }
    IoQueueWorkItem(socket->Worker, RsockCqWorker, DelayedWorkQueue, socket);
}

NTSTATUS RsockPostAndWait(_In_ PRSOCK_SOCKET Socket, _Inout_ PRSOCK_REQUEST Request,
                          _In_ NTSTATUS Posted) {
    UNREFERENCED_PARAMETER(Socket);
    PAGED_CODE();
    if (!NT_SUCCESS(Posted)) {
        return Posted;
    }
    KeWaitForSingleObject(&Request->Done, Executive, KernelMode, FALSE, NULL);
    return Request->Status;
}
