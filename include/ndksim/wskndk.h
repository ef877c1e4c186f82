/* SPDX-License-Identifier: MIT */
/** \file
 * wskndk.h - the NDK extension of the WSK provider: how a kernel consumer opens an NDK_ADAPTER
 * on the interface it chose (by index, see netioapi.h). It asks the captured provider NPI's
 * WskControlClient for WSKNDK_GET_WSK_PROVIDER_NDK_DISPATCH and gets this table. Names, values
 * and x64 layouts are the WDK's.
 */
#pragma once

#include "ndkpi.h"
#include "wsk.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Opens an NDK_ADAPTER on the simulated adapter whose interface index is IfIndex, through the
 * same path as NDIS's OPEN_NDK_ADAPTER_HANDLER: NdkVersion is the NDKPI major and the lowest
 * minor the consumer accepts, and the adapter runs at the highest minor of that major. Returns
 * STATUS_SUCCESS with *ppNdkAdapter set; STATUS_INVALID_PARAMETER for an unknown Client, a
 * NULL ppNdkAdapter, or an IfIndex that names no simulated adapter (Microsoft documents no
 * status for it; netio's own interface lookups, ConvertInterfaceIndexToLuid, answer an unknown
 * index with STATUS_INVALID_PARAMETER); STATUS_NOT_SUPPORTED for a version the adapter does
 * not implement (a major other than 1 or 2, or a minor above the major's highest);
 * STATUS_INSUFFICIENT_RESOURCES. PASSIVE_LEVEL.
 */
typedef _IRQL_requires_max_(PASSIVE_LEVEL)
    NTSTATUS(WSKAPI* PFN_WSK_NDK_OPEN_ADAPTER)(_In_ PWSK_CLIENT Client, _In_ NDK_VERSION NdkVersion,
                                               _In_ NET_IFINDEX IfIndex,
                                               _Out_ NDK_ADAPTER** ppNdkAdapter);

/**
 * Closes an adapter opened by WskOpenNdkAdapter through the same Client, as
 * CLOSE_NDK_ADAPTER_HANDLER does: blocks until every callback under it has returned, and
 * reports objects left open. An adapter this client did not open is logged and left alone.
 * PASSIVE_LEVEL.
 */
typedef _IRQL_requires_max_(PASSIVE_LEVEL)
    VOID(WSKAPI* PFN_WSK_NDK_CLOSE_ADAPTER)(_In_ PWSK_CLIENT Client, _In_ NDK_ADAPTER* pNdkAdapter);

typedef struct _WSK_PROVIDER_NDK_DISPATCH {
    PFN_WSK_NDK_OPEN_ADAPTER WskOpenNdkAdapter;
    PFN_WSK_NDK_CLOSE_ADAPTER WskCloseNdkAdapter;
} WSK_PROVIDER_NDK_DISPATCH, *PWSK_PROVIDER_NDK_DISPATCH;

/**
 * WskControlClient's ControlCode for the table above: the WDK's ((ULONG)'NDKD'), spelled as its
 * value to keep consumers' multi-character-constant warnings out. No input (InputSize 0); the
 * output buffer receives the table. Returns STATUS_SUCCESS (and *OutputSizeReturned, if given,
 * is the table's size); STATUS_INVALID_PARAMETER for a nonzero InputSize or a NULL
 * OutputBuffer; STATUS_BUFFER_OVERFLOW when OutputSize is below the table's size (the size is
 * stored in *OutputSizeReturned, if given); STATUS_NOT_SUPPORTED with an Irp (the simulator
 * completes no IRPs; the IRP is left untouched). <= DISPATCH_LEVEL.
 */
#define WSKNDK_GET_WSK_PROVIDER_NDK_DISPATCH NDKSIM_SCAST(ULONG, 0x4E444B44UL)

#if NDKSIM_ABI_LAYOUT_CHECKS
NDKSIM_ASSERT_SIZE(WSK_PROVIDER_NDK_DISPATCH, 0x10);
NDKSIM_ASSERT_OFFSET(WSK_PROVIDER_NDK_DISPATCH, WskCloseNdkAdapter, 0x08);
#endif

#ifdef __cplusplus
}
#endif
