/* SPDX-License-Identifier: MIT */
/*
 * rsock_region.c - exposing memory to the peer and reaching the peer's memory.
 *
 * A region is pool memory mapped with NdkBuildLAM and fast-registered on a fast-register memory
 * region: the registration is a work request on the socket's own queue pair, so it is ordered
 * with the socket's other requests, and invalidating it is one too. The initiator side names
 * its LAM-mapped staging pages directly under the privileged token, one SGE per page, because
 * consecutive adapter pages need not be contiguous.
 */
#include "rsock_internal.h"

#define RSOCK_REGION_BASE 0x100000000ULL

NTSTATUS RsockRegisterRegion(_In_ PRSOCK_SOCKET Socket, _In_ ULONG Length,
                             _Outptr_ PRSOCK_REGION* Region,
                             _Out_ PRSOCK_REGION_DESCRIPTOR Descriptor) {
    PRSOCK_ADAPTER adapter = Socket->Adapter;
    PRSOCK_REGION region;
    RSOCK_REQUEST request;
    NTSTATUS status;
    PAGED_CODE();

    *Region = NULL;
    RtlZeroMemory(Descriptor, sizeof(*Descriptor));
    region = (PRSOCK_REGION)ExAllocatePool2(POOL_FLAG_NON_PAGED, sizeof(*region), RSOCK_POOL_TAG);
    if (region == NULL) {
        return STATUS_INSUFFICIENT_RESOURCES;
    }
    status = RsockMap(adapter, Length, &region->Mapping);
    if (NT_SUCCESS(status)) {
        RsockRequestInit(&request);
        status = adapter->Pd->Dispatch->NdkCreateMr(adapter->Pd, TRUE, RsockCreateDone, &request,
                                                    &region->Mr);
        status = RsockRequestWait(&request, status);
        if (NT_SUCCESS(status) && region->Mr == NULL) {
            region->Mr = (NDK_MR*)request.Object;
        }
    }
    if (NT_SUCCESS(status)) {
        RsockRequestInit(&request);
        status = region->Mr->Dispatch->NdkInitializeFastRegisterMr(
            region->Mr, region->Mapping.Lam->AdapterPageCount, TRUE, RsockRequestDone, &request);
        status = RsockRequestWait(&request, status);
    }
    if (NT_SUCCESS(status)) {
        /* The base keeps the mapping's first-byte offset, as fast-register requires. */
        region->BaseAddress = RSOCK_REGION_BASE + region->Mapping.Fbo;
        RsockRequestInit(&request);
        status = RsockPostAndWait(
            Socket, &request,
            Socket->Qp->Dispatch->NdkFastRegister(
                Socket->Qp, &request, region->Mr, region->Mapping.Lam->AdapterPageCount,
                region->Mapping.Lam->AdapterPageArray, region->Mapping.Fbo, Length,
                (PVOID)(ULONG_PTR)region->BaseAddress,
                NDK_OP_FLAG_ALLOW_LOCAL_WRITE | NDK_OP_FLAG_ALLOW_REMOTE_READ |
                    NDK_OP_FLAG_ALLOW_REMOTE_WRITE));
    }
    if (!NT_SUCCESS(status)) {
        RsockFreeRegion(Socket, region);
        return status;
    }
    region->Valid = TRUE;
    Descriptor->Address = region->BaseAddress;
    Descriptor->Token = region->Mr->Dispatch->NdkGetRemoteTokenFromMr(region->Mr);
    Descriptor->Length = Length;
    *Region = region;
    return STATUS_SUCCESS;
}

PVOID RsockRegionBuffer(_In_ PRSOCK_REGION Region) {
    return Region->Mapping.Buffer;
}

NTSTATUS RsockInvalidateRegion(_In_ PRSOCK_SOCKET Socket, _In_ PRSOCK_REGION Region) {
    RSOCK_REQUEST request;
    NTSTATUS status;
    PAGED_CODE();
    RsockRequestInit(&request);
    status = RsockPostAndWait(
        Socket, &request,
        Socket->Qp->Dispatch->NdkInvalidate(Socket->Qp, &request, &Region->Mr->Header, 0));
    if (NT_SUCCESS(status)) {
        Region->Valid = FALSE;
    }
    return status;
}

VOID RsockFreeRegion(_In_ PRSOCK_SOCKET Socket, _In_ PRSOCK_REGION Region) {
    PAGED_CODE();
    if (Region->Valid) {
        NT_VERIFY(NT_SUCCESS(RsockInvalidateRegion(Socket, Region)));
    }
    RsockCloseObject(Region->Mr ? &Region->Mr->Header : NULL);
    RsockUnmap(Socket->Adapter, &Region->Mapping);
    ExFreePoolWithTag(Region, RSOCK_POOL_TAG);
}

/* Describes the first Length bytes of the staging buffer, one SGE per adapter page. */
static ULONG RsockStagingSgl(_In_ PRSOCK_SOCKET Socket, _In_ ULONG Length,
                             _Out_writes_(RSOCK_STAGING_PAGES) NDK_SGE* Sgl) {
    const RSOCK_MAPPING* staging = &Socket->Staging;
    ULONG left = Length;
    ULONG count = 0;
    while (left > 0) {
        ULONG inPage = PAGE_SIZE - (count == 0 ? staging->Fbo : 0);
        RtlZeroMemory(&Sgl[count], sizeof(Sgl[count]));
        Sgl[count].LogicalAddress = staging->Lam->AdapterPageArray[count];
        if (count == 0) {
            Sgl[count].LogicalAddress.QuadPart += staging->Fbo;
        }
        Sgl[count].Length = min(left, inPage);
        Sgl[count].MemoryRegionToken = Socket->Adapter->PrivilegedToken;
        left -= Sgl[count].Length;
        ++count;
    }
    return count;
}

/* Checks a remote range against the peer's descriptor and the staging buffer. */
static NTSTATUS RsockCheckRange(_In_ const RSOCK_REGION_DESCRIPTOR* Remote, _In_ ULONG Length,
                                _In_ ULONG Offset) {
    if (Length == 0 || Length > RSOCK_STAGING_PAGES * PAGE_SIZE || Offset > Remote->Length ||
        Length > Remote->Length - Offset) {
        return STATUS_INVALID_PARAMETER;
    }
    return STATUS_SUCCESS;
}

/* One RDMA transfer between the staging buffer and the peer's region. */
static NTSTATUS RsockTransfer(_In_ PRSOCK_SOCKET Socket, _In_ BOOLEAN Write, _Inout_ PUCHAR Data,
                              _In_ ULONG Length, _In_ const RSOCK_REGION_DESCRIPTOR* Remote,
                              _In_ ULONG Offset) {
    NDK_SGE sgl[RSOCK_STAGING_PAGES];
    RSOCK_REQUEST request;
    ULONG count;
    NTSTATUS status = RsockCheckRange(Remote, Length, Offset);
    PAGED_CODE();
    if (!NT_SUCCESS(status)) {
        return status;
    }
    KeWaitForSingleObject(&Socket->StagingFree, Executive, KernelMode, FALSE, NULL);
    if (Write) {
        RtlCopyMemory(Socket->Staging.Buffer, Data, Length);
    }
    count = RsockStagingSgl(Socket, Length, sgl);
    RsockRequestInit(&request);
    status = Write ? Socket->Qp->Dispatch->NdkWrite(Socket->Qp, &request, sgl, count,
                                                    Remote->Address + Offset, Remote->Token, 0)
                   : Socket->Qp->Dispatch->NdkRead(Socket->Qp, &request, sgl, count,
                                                   Remote->Address + Offset, Remote->Token, 0);
    status = RsockPostAndWait(Socket, &request, status);
    if (NT_SUCCESS(status) && !Write) {
        RtlCopyMemory(Data, Socket->Staging.Buffer, Length);
    }
    KeSetEvent(&Socket->StagingFree, IO_NO_INCREMENT, FALSE);
    return status;
}

NTSTATUS RsockWrite(_In_ PRSOCK_SOCKET Socket, _In_reads_bytes_(Length) const VOID* Data,
                    _In_ ULONG Length, _In_ const RSOCK_REGION_DESCRIPTOR* Remote,
                    _In_ ULONG Offset) {
    return RsockTransfer(Socket, TRUE, (PUCHAR)Data, Length, Remote, Offset);
}

NTSTATUS RsockRead(_In_ PRSOCK_SOCKET Socket, _Out_writes_bytes_(Length) VOID* Data,
                   _In_ ULONG Length, _In_ const RSOCK_REGION_DESCRIPTOR* Remote,
                   _In_ ULONG Offset) {
    return RsockTransfer(Socket, FALSE, (PUCHAR)Data, Length, Remote, Offset);
}
