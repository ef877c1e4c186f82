/* SPDX-License-Identifier: MIT */
/*
 * rsock_request.c - waiting for NDK calls that pend, and closing NDK objects.
 *
 * Any NDK call may complete inline or return STATUS_PENDING and complete later through its
 * callback, at DISPATCH_LEVEL and possibly on another processor. The callbacks here only record
 * the result and set a KEVENT, which is all a DISPATCH_LEVEL routine may do; the caller waits at
 * PASSIVE_LEVEL.
 */
#include "rsock_internal.h"

VOID RsockRequestInit(_Out_ PRSOCK_REQUEST Request) {
    RtlZeroMemory(Request, sizeof(*Request));
    Request->Kind = RsockKindWaiter;
    Request->Status = STATUS_PENDING;
    KeInitializeEvent(&Request->Done, NotificationEvent, FALSE);
}

NTSTATUS RsockRequestWait(_Inout_ PRSOCK_REQUEST Request, _In_ NTSTATUS Returned) {
    PAGED_CODE();
    if (Returned != STATUS_PENDING) {
        return Returned;
    }
    KeWaitForSingleObject(&Request->Done, Executive, KernelMode, FALSE, NULL);
    return Request->Status;
}

_Use_decl_annotations_ VOID RsockCreateDone(PVOID Context, NTSTATUS Status,
                                            NDK_OBJECT_HEADER* Object) {
    PRSOCK_REQUEST request = (PRSOCK_REQUEST)Context;
    request->Object = Object;
    request->Status = Status;
    KeSetEvent(&request->Done, IO_NO_INCREMENT, FALSE);
}

_Use_decl_annotations_ VOID RsockRequestDone(PVOID Context, NTSTATUS Status) {
    PRSOCK_REQUEST request = (PRSOCK_REQUEST)Context;
    request->Status = Status;
    KeSetEvent(&request->Done, IO_NO_INCREMENT, FALSE);
}

static VOID RsockCloseDone(_In_opt_ PVOID Context) {
    PRSOCK_REQUEST request = (PRSOCK_REQUEST)Context;
    request->Status = STATUS_SUCCESS;
    KeSetEvent(&request->Done, IO_NO_INCREMENT, FALSE);
}

VOID RsockCloseObject(_In_opt_ NDK_OBJECT_HEADER* Object) {
    RSOCK_REQUEST request;
    NTSTATUS status;
    PAGED_CODE();
    if (Object == NULL) {
        return;
    }
    RsockRequestInit(&request);
    /* Every NDK dispatch table starts with its close routine (NDK_FN_CLOSE_OBJECT). */
    status = ((NDK_QP*)Object)->Dispatch->NdkCloseQp(Object, RsockCloseDone, &request);
    NT_VERIFY(NT_SUCCESS(RsockRequestWait(&request, status)));
}

VOID RsockMakeAddress(_Out_ PSOCKADDR_IN Sockaddr, _In_ ULONG Address, _In_ USHORT Port) {
    RtlZeroMemory(Sockaddr, sizeof(*Sockaddr));
    Sockaddr->sin_family = WS_AF_INET;
    Sockaddr->sin_port = RtlUshortByteSwap(Port);
    Sockaddr->sin_addr.s_addr = Address;
}
