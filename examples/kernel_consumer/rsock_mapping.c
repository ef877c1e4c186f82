/* SPDX-License-Identifier: MIT */
/*
 * rsock_mapping.c - pool memory the adapter reaches through a logical address mapping (LAM).
 *
 * NdkBuildLAM turns an MDL into adapter page addresses. A fast-register work request can then
 * expose those pages to the peer, and local SGEs can name them directly under the protection
 * domain's privileged token, with no memory region registration at all.
 */
#include "rsock_internal.h"

NTSTATUS RsockMap(_In_ PRSOCK_ADAPTER Adapter, _In_ ULONG Length, _Out_ PRSOCK_MAPPING Mapping) {
    RSOCK_REQUEST request;
    NTSTATUS status;
    ULONG lamSize = 0;
    PAGED_CODE();
    RtlZeroMemory(Mapping, sizeof(*Mapping));
    /* A page or more of pool is page-aligned, so the mapping starts at offset zero of a page. */
    Mapping->Buffer = (PUCHAR)ExAllocatePool2(POOL_FLAG_NON_PAGED, Length, RSOCK_POOL_TAG);
    if (Mapping->Buffer == NULL) {
        return STATUS_INSUFFICIENT_RESOURCES;
    }
    Mapping->Length = Length;
    Mapping->Mdl = IoAllocateMdl(Mapping->Buffer, Length, FALSE, FALSE, NULL);
    if (Mapping->Mdl == NULL) {
        RsockUnmap(Adapter, Mapping);
        return STATUS_INSUFFICIENT_RESOURCES;
    }
    MmBuildMdlForNonPagedPool(Mapping->Mdl);

    /* The first call only learns the mapping's size. */
    status = Adapter->Ndk->Dispatch->NdkBuildLAM(Adapter->Ndk, Mapping->Mdl, Length, NULL, NULL,
                                                 NULL, &lamSize, &Mapping->Fbo);
    if (status != STATUS_BUFFER_TOO_SMALL) {
        RsockUnmap(Adapter, Mapping);
        return NT_SUCCESS(status) ? STATUS_UNSUCCESSFUL : status;
    }
    Mapping->Lam =
        (NDK_LOGICAL_ADDRESS_MAPPING*)ExAllocatePool2(POOL_FLAG_NON_PAGED, lamSize, RSOCK_POOL_TAG);
    if (Mapping->Lam == NULL) {
        RsockUnmap(Adapter, Mapping);
        return STATUS_INSUFFICIENT_RESOURCES;
    }
    RsockRequestInit(&request);
    status =
        Adapter->Ndk->Dispatch->NdkBuildLAM(Adapter->Ndk, Mapping->Mdl, Length, RsockRequestDone,
                                            &request, Mapping->Lam, &lamSize, &Mapping->Fbo);
    status = RsockRequestWait(&request, status);
    if (!NT_SUCCESS(status)) {
        ExFreePoolWithTag(Mapping->Lam, RSOCK_POOL_TAG);
        Mapping->Lam = NULL;
        RsockUnmap(Adapter, Mapping);
    }
    return status;
}

VOID RsockUnmap(_In_ PRSOCK_ADAPTER Adapter, _Inout_ PRSOCK_MAPPING Mapping) {
    if (Mapping->Lam != NULL) {
        Adapter->Ndk->Dispatch->NdkReleaseLAM(Adapter->Ndk, Mapping->Lam);
        ExFreePoolWithTag(Mapping->Lam, RSOCK_POOL_TAG);
    }
    if (Mapping->Mdl != NULL) {
        IoFreeMdl(Mapping->Mdl);
    }
    if (Mapping->Buffer != NULL) {
        ExFreePoolWithTag(Mapping->Buffer, RSOCK_POOL_TAG);
    }
    RtlZeroMemory(Mapping, sizeof(*Mapping));
}
