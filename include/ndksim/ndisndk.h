/* SPDX-License-Identifier: MIT */
/** \file
 * ndisndk.h - the NDIS side of NDK: how a miniport advertises NDK, how NDK adapters are opened and
 * closed, and the OIDs that report NDK state (REFERENCE.md 2.8, 3, 5.11 and 11).
 *
 * Include order: this header needs only NDK_VERSION and NDK_ADAPTER_INFO (from ndkinfo.h) and an
 * incomplete NDK_ADAPTER, so it forward-declares the adapter and pulls in the full ndkpi.h at the
 * end, as the Windows header does. ndkpi.h in turn includes this header before its own
 * definitions. With `#pragma once` in both, either header may be included first.
 */
#pragma once

#include "ndkinfo.h"
#include "wdm.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define NDKSIM_MAYBE_UNUSED __attribute__((unused))
#else
#define NDKSIM_MAYBE_UNUSED
#endif

/** Same declaration as in ndkpi.h; repeating an identical typedef is valid C11 and C++. */
typedef struct _NDK_ADAPTER NDK_ADAPTER;

typedef PVOID NDIS_HANDLE, *PNDIS_HANDLE;
typedef ULONG NDIS_OID, *PNDIS_OID;

/** Common header of versioned NDIS structures (REFERENCE.md 3). */
typedef struct _NDIS_OBJECT_HEADER {
    UCHAR Type;
    UCHAR Revision;
    USHORT Size; /**< bytes, normally one of the NDIS_SIZEOF_* values below */
} NDIS_OBJECT_HEADER, *PNDIS_OBJECT_HEADER;

/** Header.Type values (REFERENCE.md 2.8). */
#define NDIS_OBJECT_TYPE_DEFAULT 0x80
#define NDIS_OBJECT_TYPE_NDK_PROVIDER_CHARACTERISTICS 0xB2
#define NDIS_OBJECT_TYPE_MINIPORT_ADAPTER_NDK_ATTRIBUTES 0xB3

/** Header.Revision values. */
#define NDIS_NDK_PROVIDER_CHARACTERISTICS_REVISION_1 1
#define NDIS_MINIPORT_ADAPTER_NDK_ATTRIBUTES_REVISION_1 1
#define NDIS_NDK_CAPABILITIES_REVISION_1 1
#define NDIS_NDK_STATISTICS_INFO_REVISION_1 1
#define NDIS_NDK_CONNECTIONS_REVISION_1 1
#define NDIS_NDK_LOCAL_ENDPOINTS_REVISION_1 1

/** NDK OIDs (REFERENCE.md 2.8 and 11). */
#define OID_NDK_SET_STATE 0xFC040201U       /* BOOLEAN: enable or disable NDK; never pends */
#define OID_NDK_STATISTICS 0xFC040202U      /* NDIS_NDK_STATISTICS_INFO */
#define OID_NDK_CONNECTIONS 0xFC040203U     /* NDIS_NDK_CONNECTIONS */
#define OID_NDK_LOCAL_ENDPOINTS 0xFC040204U /* NDIS_NDK_LOCAL_ENDPOINTS */

/** WMI GUIDs for the NDK capabilities and state (REFERENCE.md 2.8). */
/** 7969ba4d-dd80-4bc7-b3e6-68043997e519 */
static const GUID GUID_NDIS_NDK_CAPABILITIES NDKSIM_MAYBE_UNUSED = {
    0x7969ba4d, 0xdd80, 0x4bc7, {0xb3, 0xe6, 0x68, 0x04, 0x39, 0x97, 0xe5, 0x19}};
/** 530c69c9-2f51-49de-a1af-088d54ffa474 */
static const GUID GUID_NDIS_NDK_STATE NDKSIM_MAYBE_UNUSED = {
    0x530c69c9, 0x2f51, 0x49de, {0xa1, 0xaf, 0x08, 0x8d, 0x54, 0xff, 0xa4, 0x74}};

/**
 * Registry (INF) keywords. Windows wraps the first two in NDIS_STRING_CONST (a counted UTF-16
 * string); the simulator has no NDIS strings, so they are plain C string literals here.
 */
#define NETWORK_DIRECT_KEYWORD "*NetworkDirect"                         /* 0 off, 1 on (default) */
#define NETWORK_DIRECT_GLOBAL_FLAGS_KEYWORD "*NetworkDirectGlobalFlags" /* bit mask below */
#define NETWORK_DIRECT_GLOBAL_FLAGS_ALLOW_REMOTE_IP_SUBNET 0x00000001
/**
 * Further standard keywords without a Windows macro name (REFERENCE.md 2.8): the RDMA technology
 * (NdkiWarp..NdkRoCEv2) and the RoCE frame size (256, 512, 1024, 2048 or 4096; default 1024).
 */
#define NDKSIM_NETWORK_DIRECT_TECHNOLOGY_KEYWORD "*NetworkDirectTechnology"
#define NDKSIM_NETWORK_DIRECT_ROCE_FRAME_SIZE_KEYWORD "*NetworkDirectRoCEFrameSize"

/**
 * Input of OPEN_NDK_ADAPTER_HANDLER: the NDKPI major version and the lowest minor version the
 * consumer accepts. This is the NDIS 6.30/6.40 form; NDIS 6.50 appends SwitchId and VPortId,
 * which the simulator does not model.
 */
typedef struct _NDIS_OPEN_NDK_ADAPTER_PARAMETERS {
    NDK_VERSION Version;
} NDIS_OPEN_NDK_ADAPTER_PARAMETERS, *PNDIS_OPEN_NDK_ADAPTER_PARAMETERS;

/**
 * Opens one more NDK_ADAPTER instance on a miniport adapter (several may be open at once).
 * PASSIVE_LEVEL, may block. Returns NDIS_STATUS_SUCCESS with *ppNdkAdapter set,
 * NDIS_STATUS_BAD_VERSION when the major version is not implemented or the requested minor is
 * above the provider's highest, NDIS_STATUS_ADAPTER_NOT_READY while NDK is disabled, or
 * NDIS_STATUS_RESOURCES (REFERENCE.md 1 and 5.11).
 */
typedef _IRQL_requires_(PASSIVE_LEVEL)
    NDIS_STATUS (*OPEN_NDK_ADAPTER_HANDLER)(_In_ NDIS_HANDLE MiniportAdapterContext,
                                            _In_ PNDIS_OPEN_NDK_ADAPTER_PARAMETERS Parameters,
                                            _Outptr_ NDK_ADAPTER** ppNdkAdapter);

/**
 * Closes an adapter opened by OPEN_NDK_ADAPTER_HANDLER. PASSIVE_LEVEL and blocking: it returns
 * only after every callback of every object created under the adapter has returned, so it must
 * not be called from inside an NDK callback (REFERENCE.md 5.11 and 10, rule 6).
 */
typedef _IRQL_requires_(PASSIVE_LEVEL)
    VOID (*CLOSE_NDK_ADAPTER_HANDLER)(_In_ NDIS_HANDLE MiniportAdapterContext,
                                      _In_ NDK_ADAPTER* pNdkAdapter);

/** Registered by an NDK-capable miniport in MiniportSetOptions. */
typedef struct _NDIS_NDK_PROVIDER_CHARACTERISTICS {
    NDIS_OBJECT_HEADER Header; /**< NDIS_OBJECT_TYPE_NDK_PROVIDER_CHARACTERISTICS, revision 1 */
    ULONG Flags;               /**< reserved, 0 */
    OPEN_NDK_ADAPTER_HANDLER OpenNDKAdapterHandler;
    CLOSE_NDK_ADAPTER_HANDLER CloseNDKAdapterHandler;
} NDIS_NDK_PROVIDER_CHARACTERISTICS, *PNDIS_NDK_PROVIDER_CHARACTERISTICS;

#define NDIS_SIZEOF_NDK_PROVIDER_CHARACTERISTICS_REVISION_1 \
    RTL_SIZEOF_THROUGH_FIELD(NDIS_NDK_PROVIDER_CHARACTERISTICS, CloseNDKAdapterHandler)

/**
 * Adapter-wide NDK capacity, reported even while NDK is disabled. The read limits are
 * adapter-wide totals (0: no adapter-wide limit); per-QP limits live in NdkInfo.
 */
typedef struct _NDIS_NDK_CAPABILITIES {
    NDIS_OBJECT_HEADER Header; /**< NDIS_OBJECT_TYPE_DEFAULT, NDIS_NDK_CAPABILITIES_REVISION_1 */
    ULONG Flags;
    ULONG MaxQpCount;
    ULONG MaxCqCount;
    ULONG MaxMrCount;
    ULONG MaxPdCount;
    ULONG MaxInboundReadLimit;
    ULONG MaxOutboundReadLimit;
    ULONG MaxMwCount;
    ULONG MaxSrqCount;
    ULONG64 MissingCounterMask; /**< bit n set: NDIS_NDK_PERFORMANCE_COUNTERS counter n missing */
    NDK_ADAPTER_INFO* NdkInfo;
} NDIS_NDK_CAPABILITIES, *PNDIS_NDK_CAPABILITIES;

#define NDIS_SIZEOF_NDK_CAPABILITIES_REVISION_1 \
    RTL_SIZEOF_THROUGH_FIELD(NDIS_NDK_CAPABILITIES, NdkInfo)

/** Reported by the miniport in MiniportInitializeEx. */
typedef struct _NDIS_MINIPORT_ADAPTER_NDK_ATTRIBUTES {
    NDIS_OBJECT_HEADER Header; /**< NDIS_OBJECT_TYPE_MINIPORT_ADAPTER_NDK_ATTRIBUTES, revision 1 */
    BOOLEAN Enabled;           /**< current NDK state */
    PNDIS_NDK_CAPABILITIES NdkCapabilities;
} NDIS_MINIPORT_ADAPTER_NDK_ATTRIBUTES, *PNDIS_MINIPORT_ADAPTER_NDK_ATTRIBUTES;

#define NDIS_SIZEOF_MINIPORT_ADAPTER_NDK_ATTRIBUTES_REVISION_1 \
    RTL_SIZEOF_THROUGH_FIELD(NDIS_MINIPORT_ADAPTER_NDK_ATTRIBUTES, NdkCapabilities)

/**
 * NDK (and NDSPI) traffic counters. The comment after each counter is its bit number in
 * NDIS_NDK_CAPABILITIES.MissingCounterMask. Reserved counters are written as zero.
 */
typedef struct _NDIS_NDK_PERFORMANCE_COUNTERS {
    ULONG64 Connect;          /**< 0: outbound connections established */
    ULONG64 Accept;           /**< 1: inbound connections established */
    ULONG64 ConnectFailure;   /**< 2: failed connect attempts, either direction */
    ULONG64 ConnectionError;  /**< 3: connections that failed before the consumer disconnected */
    ULONG64 ActiveConnection; /**< 4: currently active connections */
    ULONG64 Reserved01;
    ULONG64 Reserved02;
    ULONG64 Reserved03;
    ULONG64 Reserved04;
    ULONG64 Reserved05;
    ULONG64 Reserved06;
    ULONG64 Reserved07;
    ULONG64 Reserved08;
    ULONG64 Reserved09;
    ULONG64 Reserved10;
    ULONG64 Reserved11;
    ULONG64 Reserved12;
    ULONG64 Reserved13;
    ULONG64 Reserved14;
    ULONG64 Reserved15;
    ULONG64 Reserved16;
    ULONG64 Reserved17;
    ULONG64 Reserved18;
    ULONG64 Reserved19;
    ULONG64 Reserved20;
    ULONG64 CQError;       /**< 25: CQs that went into the error state */
    ULONG64 RDMAInOctets;  /**< 26: incoming RDMA bytes, including layer-2 overhead */
    ULONG64 RDMAOutOctets; /**< 27: outgoing RDMA bytes, including layer-2 overhead */
    ULONG64 RDMAInFrames;  /**< 28: layer-2 frames carrying incoming RDMA traffic */
    ULONG64 RDMAOutFrames; /**< 29: layer-2 frames carrying outgoing RDMA traffic */
} NDIS_NDK_PERFORMANCE_COUNTERS, *PNDIS_NDK_PERFORMANCE_COUNTERS;

/** OID_NDK_STATISTICS payload. */
typedef struct _NDIS_NDK_STATISTICS_INFO {
    NDIS_OBJECT_HEADER Header; /**< NDIS_OBJECT_TYPE_DEFAULT, NDIS_NDK_STATISTICS_INFO_REVISION_1 */
    ULONG Flags;
    NDIS_NDK_PERFORMANCE_COUNTERS CounterSet;
} NDIS_NDK_STATISTICS_INFO, *PNDIS_NDK_STATISTICS_INFO;

#define NDIS_SIZEOF_NDK_STATISTICS_INFO_REVISION_1 \
    RTL_SIZEOF_THROUGH_FIELD(NDIS_NDK_STATISTICS_INFO, CounterSet)

/** One active connection: ND addresses and ports of both ends. */
typedef struct _NDIS_NDK_CONNECTION_ENTRY {
    SOCKADDR_INET Local;
    SOCKADDR_INET Remote;
    BOOLEAN UserModeOwner; /**< TRUE for an NDSPI (user-mode) connection */
    ULONG OwnerPid;        /**< owning process of a user-mode connection */
} NDIS_NDK_CONNECTION_ENTRY, *PNDIS_NDK_CONNECTION_ENTRY;

/**
 * OID_NDK_CONNECTIONS payload, variable length: Count entries. When the transport maps ND
 * connections onto TCP connections, each ND entry is followed by its TCP entry.
 */
typedef struct _NDIS_NDK_CONNECTIONS {
    NDIS_OBJECT_HEADER Header; /**< NDIS_OBJECT_TYPE_DEFAULT, NDIS_NDK_CONNECTIONS_REVISION_1 */
    ULONG Flags;
    ULONG Count;
    BOOLEAN NDConnectionsMappedtoTCPConnections;
    _Field_size_(Count) NDIS_NDK_CONNECTION_ENTRY Connections[1];
} NDIS_NDK_CONNECTIONS, *PNDIS_NDK_CONNECTIONS;

/** Bytes for n entries; Header.Size gets (USHORT)min(MAXUSHORT, this). */
#define NDIS_SIZEOF_NDK_CONNECTIONS_REVISION_1(n) \
    (offsetof(NDIS_NDK_CONNECTIONS, Connections) + (n) * sizeof(NDIS_NDK_CONNECTION_ENTRY))

/** One listener or shared endpoint. */
typedef struct _NDIS_NDK_LOCAL_ENDPOINT_ENTRY {
    SOCKADDR_INET Local;
    BOOLEAN UserModeOwner; /**< TRUE for an NDSPI (user-mode) endpoint */
    BOOLEAN Listener;      /**< TRUE for a listener, FALSE for a shared endpoint */
    ULONG OwnerPid;
} NDIS_NDK_LOCAL_ENDPOINT_ENTRY, *PNDIS_NDK_LOCAL_ENDPOINT_ENTRY;

/** OID_NDK_LOCAL_ENDPOINTS payload, variable length, with the same ND/TCP pairing rule. */
typedef struct _NDIS_NDK_LOCAL_ENDPOINTS {
    NDIS_OBJECT_HEADER Header; /**< NDIS_OBJECT_TYPE_DEFAULT, NDIS_NDK_LOCAL_ENDPOINTS_REVISION_1 */
    ULONG Flags;
    ULONG Count;
    BOOLEAN NDLocalEndpointsMappedtoTCPLocalEndpoints;
    _Field_size_(Count) NDIS_NDK_LOCAL_ENDPOINT_ENTRY LocalEndpoints[1];
} NDIS_NDK_LOCAL_ENDPOINTS, *PNDIS_NDK_LOCAL_ENDPOINTS;

/** Bytes for n entries. The docs spell the macro without "LOCAL"; both names are provided. */
#define NDIS_SIZEOF_NDK_ENDPOINTS_REVISION_1(n)           \
    (offsetof(NDIS_NDK_LOCAL_ENDPOINTS, LocalEndpoints) + \
     (n) * sizeof(NDIS_NDK_LOCAL_ENDPOINT_ENTRY))
#define NDIS_SIZEOF_NDK_LOCAL_ENDPOINTS_REVISION_1(n) NDIS_SIZEOF_NDK_ENDPOINTS_REVISION_1(n)

/** Layout checks (x64). */
NDKSIM_ASSERT_SIZE(NDIS_OBJECT_HEADER, 4);
NDKSIM_ASSERT_OFFSET(NDIS_OBJECT_HEADER, Revision, 1);
NDKSIM_ASSERT_OFFSET(NDIS_OBJECT_HEADER, Size, 2);
NDKSIM_ASSERT_SIZE(NDIS_OPEN_NDK_ADAPTER_PARAMETERS, 4);

#if NDKSIM_ABI_LAYOUT_CHECKS
NDKSIM_ASSERT_SIZE(NDIS_NDK_PROVIDER_CHARACTERISTICS, 0x18);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_PROVIDER_CHARACTERISTICS, Flags, 0x04);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_PROVIDER_CHARACTERISTICS, OpenNDKAdapterHandler, 0x08);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_PROVIDER_CHARACTERISTICS, CloseNDKAdapterHandler, 0x10);

NDKSIM_ASSERT_SIZE(NDIS_NDK_CAPABILITIES, 0x38);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_CAPABILITIES, Flags, 0x04);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_CAPABILITIES, MaxQpCount, 0x08);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_CAPABILITIES, MaxCqCount, 0x0C);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_CAPABILITIES, MaxMrCount, 0x10);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_CAPABILITIES, MaxPdCount, 0x14);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_CAPABILITIES, MaxInboundReadLimit, 0x18);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_CAPABILITIES, MaxOutboundReadLimit, 0x1C);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_CAPABILITIES, MaxMwCount, 0x20);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_CAPABILITIES, MaxSrqCount, 0x24);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_CAPABILITIES, MissingCounterMask, 0x28);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_CAPABILITIES, NdkInfo, 0x30);

NDKSIM_ASSERT_SIZE(NDIS_MINIPORT_ADAPTER_NDK_ATTRIBUTES, 0x10);
NDKSIM_ASSERT_OFFSET(NDIS_MINIPORT_ADAPTER_NDK_ATTRIBUTES, Enabled, 0x04);
NDKSIM_ASSERT_OFFSET(NDIS_MINIPORT_ADAPTER_NDK_ATTRIBUTES, NdkCapabilities, 0x08);

NDKSIM_ASSERT_SIZE(NDIS_NDK_PERFORMANCE_COUNTERS, 30 * 8);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_PERFORMANCE_COUNTERS, ActiveConnection, 4 * 8);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_PERFORMANCE_COUNTERS, CQError, 25 * 8);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_PERFORMANCE_COUNTERS, RDMAOutFrames, 29 * 8);

NDKSIM_ASSERT_SIZE(NDIS_NDK_STATISTICS_INFO, 0x08 + 30 * 8);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_STATISTICS_INFO, Flags, 0x04);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_STATISTICS_INFO, CounterSet, 0x08);

NDKSIM_ASSERT_SIZE(NDIS_NDK_CONNECTION_ENTRY, 64);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_CONNECTION_ENTRY, Remote, 28);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_CONNECTION_ENTRY, UserModeOwner, 56);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_CONNECTION_ENTRY, OwnerPid, 60);

NDKSIM_ASSERT_SIZE(NDIS_NDK_CONNECTIONS, 16 + 64);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_CONNECTIONS, Flags, 4);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_CONNECTIONS, Count, 8);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_CONNECTIONS, NDConnectionsMappedtoTCPConnections, 12);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_CONNECTIONS, Connections, 16);

NDKSIM_ASSERT_SIZE(NDIS_NDK_LOCAL_ENDPOINT_ENTRY, 36);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_LOCAL_ENDPOINT_ENTRY, UserModeOwner, 28);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_LOCAL_ENDPOINT_ENTRY, Listener, 29);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_LOCAL_ENDPOINT_ENTRY, OwnerPid, 32);

NDKSIM_ASSERT_SIZE(NDIS_NDK_LOCAL_ENDPOINTS, 16 + 36);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_LOCAL_ENDPOINTS, Flags, 4);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_LOCAL_ENDPOINTS, Count, 8);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_LOCAL_ENDPOINTS, NDLocalEndpointsMappedtoTCPLocalEndpoints, 12);
NDKSIM_ASSERT_OFFSET(NDIS_NDK_LOCAL_ENDPOINTS, LocalEndpoints, 16);
#endif /* NDKSIM_ABI_LAYOUT_CHECKS */

#ifdef __cplusplus
}
#endif

/** Complete the NDK types, as Windows' ndisndk.h does by including ndkpi.h. */
#include "ndkpi.h"
