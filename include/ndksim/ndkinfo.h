/* SPDX-License-Identifier: MIT */
/** \file
 * ndkinfo.h - NDK adapter information shared by ndkpi.h and ndisndk.h.
 *
 * Windows keeps NDK_VERSION, NDK_ADAPTER_INFO and its flags in this separate header so that both
 * the NDK provider interface and the NDIS glue can use them; the same split lets ndkpi.h and
 * ndisndk.h be included in either order here.
 */
#pragma once

#include "wdm.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * An NDKPI version (REFERENCE.md 1). No version macros exist; versions are written numerically,
 * e.g. {1, 2} for NDKPI 1.2 or {2, 1} for 2.1. The opener passes the lowest minor it accepts;
 * the provider answers with its own highest minor of that major.
 */
typedef struct NDK_VERSION {
    USHORT Major;
    USHORT Minor;
} NDK_VERSION;

/** NDK_ADAPTER_INFO.RdmaTechnology (REFERENCE.md 2.7). */
typedef enum _NDK_RDMA_TECHNOLOGY {
    NdkUndefined = 0,
    NdkiWarp = 1,
    NdkInfiniBand = 2,
    NdkRoCE = 3,
    NdkRoCEv2 = 4,
    NdkMaxTechnology = 5
} NDK_RDMA_TECHNOLOGY;

/**
 * Limits and capabilities returned by NdkQueryAdapterInfo (REFERENCE.md 3). This is the newer
 * form that ends with RdmaTechnology (0x68 bytes on x64); older consumers may pass the 0x60-byte
 * form through the pBufferSize negotiation of NdkQueryAdapterInfo.
 */
typedef struct _NDK_ADAPTER_INFO {
    NDK_VERSION Version;          /**< negotiated NDKPI version */
    UINT32 VendorId;              /**< vendor OUI */
    UINT32 DeviceId;              /**< vendor-specific device id */
    SIZE_T MaxRegistrationSize;   /**< bytes in one memory registration */
    SIZE_T MaxWindowSize;         /**< bytes in one memory window */
    ULONG FRMRPageCount;          /**< preferred fast-register MR size in pages; at least 16 */
    ULONG MaxInitiatorRequestSge; /**< SGEs per send/write/... */
    ULONG MaxReceiveRequestSge;   /**< SGEs per receive */
    ULONG MaxReadRequestSge;      /**< SGEs per read; overrides MaxInitiatorRequestSge for reads */
    ULONG MaxTransferLength;      /**< total bytes over all SGEs of one request */
    ULONG MaxInlineDataSize;      /**< inline bytes per send or write */
    ULONG MaxInboundReadLimit;    /**< per-QP IRD */
    ULONG MaxOutboundReadLimit;   /**< per-QP ORD */
    ULONG MaxReceiveQueueDepth;
    ULONG MaxInitiatorQueueDepth;
    ULONG MaxSrqDepth; /**< 0: SRQs are not supported */
    ULONG MaxCqDepth;
    ULONG LargeRequestThreshold; /**< above this, read/write beat send/receive */
    ULONG MaxCallerData;         /**< private data bytes on connect */
    ULONG MaxCalleeData;         /**< private data bytes on accept/reject */
    ULONG AdapterFlags;          /**< NDK_ADAPTER_FLAG_* */
    NDK_RDMA_TECHNOLOGY RdmaTechnology;
} NDK_ADAPTER_INFO;

/** NDK_ADAPTER_INFO.AdapterFlags (REFERENCE.md 2.6). */
#define NDK_ADAPTER_FLAG_IN_ORDER_DMA_SUPPORTED 0x00000001
#define NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED 0x00000002
#define NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED 0x00000004
#define NDK_ADAPTER_FLAG_MULTI_ENGINE_SUPPORTED 0x00000008
#define NDK_ADAPTER_FLAG_RDMA_READ_LOCAL_INVALIDATE_SUPPORTED 0x00000010
#define NDK_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED 0x00000100
#define NDK_ADAPTER_FLAG_LOOPBACK_CONNECTIONS_SUPPORTED 0x00010000

/** Layout of REFERENCE.md 3 (x64 offsets). */
NDKSIM_ASSERT_SIZE(NDK_VERSION, 4);
NDKSIM_ASSERT_OFFSET(NDK_VERSION, Major, 0);
NDKSIM_ASSERT_OFFSET(NDK_VERSION, Minor, 2);
NDKSIM_ASSERT_SIZE(NDK_RDMA_TECHNOLOGY, 4);

#if NDKSIM_ABI_LAYOUT_CHECKS
NDKSIM_ASSERT_SIZE(NDK_ADAPTER_INFO, 0x68);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, Version, 0x00);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, VendorId, 0x04);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, DeviceId, 0x08);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, MaxRegistrationSize, 0x10);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, MaxWindowSize, 0x18);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, FRMRPageCount, 0x20);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, MaxInitiatorRequestSge, 0x24);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, MaxReceiveRequestSge, 0x28);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, MaxReadRequestSge, 0x2C);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, MaxTransferLength, 0x30);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, MaxInlineDataSize, 0x34);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, MaxInboundReadLimit, 0x38);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, MaxOutboundReadLimit, 0x3C);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, MaxReceiveQueueDepth, 0x40);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, MaxInitiatorQueueDepth, 0x44);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, MaxSrqDepth, 0x48);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, MaxCqDepth, 0x4C);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, LargeRequestThreshold, 0x50);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, MaxCallerData, 0x54);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, MaxCalleeData, 0x58);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, AdapterFlags, 0x5C);
NDKSIM_ASSERT_OFFSET(NDK_ADAPTER_INFO, RdmaTechnology, 0x60);
#endif /* NDKSIM_ABI_LAYOUT_CHECKS */

#ifdef __cplusplus
}
#endif
