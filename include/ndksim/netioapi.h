/* SPDX-License-Identifier: MIT */
/** \file
 * netioapi.h - the kernel-mode IP Helper routines NDK consumers use to find the interface (and
 * so the NDK adapter) behind an IP address and to move between an interface's index, LUID and
 * alias. Names, values and x64 layouts are the WDK's.
 *
 * The interfaces are the simulated adapters of the process: each has the index, LUID and alias
 * of its ndksim_adapter_config (ndksim.h) and one unicast address, its config's address. A
 * consumer finds the adapter that owns an address the way SMB Direct's kernel side does: it
 * reads GetUnicastIpAddressTable, matches Address, and passes the row's InterfaceIndex to
 * WskOpenNdkAdapter (wskndk.h). Every routine runs at PASSIVE_LEVEL (checked).
 *
 * Statuses are the kernel-mode ones Microsoft documents. Two documented names do not exist
 * as NTSTATUS values: STATUS_NOT_ENOUGH_MEMORY (buffer too small, allocation failure) is
 * returned as STATUS_NO_MEMORY, the status whose user-mode mapping, ERROR_NOT_ENOUGH_MEMORY,
 * is what the user-mode versions of these routines document.
 */
#pragma once

#include "ifdef.h"
#include "wdm.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef STATUS_NOT_FOUND
#define STATUS_NOT_FOUND NDKSIM_SCAST(NTSTATUS, 0xC0000225L)
#endif

/** In kernel mode the routines return NTSTATUS. */
#define NETIO_STATUS NTSTATUS
#define NETIO_SUCCESS(x) NT_SUCCESS(x)
#define NETIOAPI_API_ NTAPI
#define NETIOAPI_API NETIO_STATUS NETIOAPI_API_

/** Variable-length tables declare one element. */
#ifndef ANY_SIZE
#define ANY_SIZE 1
#endif

/** How an address's prefix and suffix were configured, and its duplicate-detection state. */
typedef enum _NL_PREFIX_ORIGIN {
    IpPrefixOriginOther = 0,
    IpPrefixOriginManual = 1,
    IpPrefixOriginWellKnown = 2,
    IpPrefixOriginDhcp = 3,
    IpPrefixOriginRouterAdvertisement = 4,
    IpPrefixOriginUnchanged = 16
} NL_PREFIX_ORIGIN;

typedef enum _NL_SUFFIX_ORIGIN {
    NlsoOther = 0,
    NlsoManual = 1,
    NlsoWellKnown = 2,
    NlsoDhcp = 3,
    NlsoLinkLayerAddress = 4,
    NlsoRandom = 5,
    IpSuffixOriginOther = 0,
    IpSuffixOriginManual = 1,
    IpSuffixOriginWellKnown = 2,
    IpSuffixOriginDhcp = 3,
    IpSuffixOriginLinkLayerAddress = 4,
    IpSuffixOriginRandom = 5,
    IpSuffixOriginUnchanged = 16
} NL_SUFFIX_ORIGIN;

typedef enum _NL_DAD_STATE {
    NldsInvalid = 0,
    NldsTentative = 1,
    NldsDuplicate = 2,
    NldsDeprecated = 3,
    NldsPreferred = 4,
    IpDadStateInvalid = 0,
    IpDadStateTentative = 1,
    IpDadStateDuplicate = 2,
    IpDadStateDeprecated = 3,
    IpDadStatePreferred = 4
} NL_DAD_STATE;

/**
 * One unicast address of an interface. The simulator fills, per adapter: Address (port 0;
 * IPv6 with WS_AF_INET6 unless the consumer asked for the platform's AF_INET6, see wdm.h),
 * InterfaceLuid, InterfaceIndex, both origins Manual, both lifetimes 0xFFFFFFFF (infinite),
 * OnLinkPrefixLength 24 for IPv4 and 64 for IPv6, SkipAsSource FALSE, DadState Preferred,
 * ScopeId 0 and CreationTimeStamp the adapter's creation time (KeQuerySystemTime units).
 */
typedef struct _MIB_UNICASTIPADDRESS_ROW {
    SOCKADDR_INET Address;
    NET_LUID InterfaceLuid;
    NET_IFINDEX InterfaceIndex;
    NL_PREFIX_ORIGIN PrefixOrigin;
    NL_SUFFIX_ORIGIN SuffixOrigin;
    ULONG ValidLifetime;
    ULONG PreferredLifetime;
    UINT8 OnLinkPrefixLength;
    BOOLEAN SkipAsSource;
    NL_DAD_STATE DadState;
    SCOPE_ID ScopeId;
    LARGE_INTEGER CreationTimeStamp;
} MIB_UNICASTIPADDRESS_ROW, *PMIB_UNICASTIPADDRESS_ROW;

typedef struct _MIB_UNICASTIPADDRESS_TABLE {
    ULONG NumEntries;
    MIB_UNICASTIPADDRESS_ROW Table[ANY_SIZE];
} MIB_UNICASTIPADDRESS_TABLE, *PMIB_UNICASTIPADDRESS_TABLE;

/**
 * Stores the LUID of the interface with index InterfaceIndex in *InterfaceLuid. Returns
 * STATUS_SUCCESS, or STATUS_INVALID_PARAMETER when InterfaceLuid is NULL or no interface has
 * that index (then *InterfaceLuid, if given, is zeroed). PASSIVE_LEVEL.
 */
NDKSIM_API NETIO_STATUS NETIOAPI_API_ ConvertInterfaceIndexToLuid(_In_ NET_IFINDEX InterfaceIndex,
                                                                  _Out_ PNET_LUID InterfaceLuid);

/**
 * Stores the index of the interface *InterfaceLuid in *InterfaceIndex. Returns STATUS_SUCCESS,
 * or STATUS_INVALID_PARAMETER when a pointer is NULL or no interface has that LUID (then
 * *InterfaceIndex, if given, is NET_IFINDEX_UNSPECIFIED). PASSIVE_LEVEL.
 */
NDKSIM_API NETIO_STATUS NETIOAPI_API_
ConvertInterfaceLuidToIndex(_In_ const NET_LUID* InterfaceLuid, _Out_ PNET_IFINDEX InterfaceIndex);

/**
 * Copies the alias of interface *InterfaceLuid, NUL-terminated UTF-16, to InterfaceAlias,
 * a buffer of Length WCHARs (at most NDIS_IF_MAX_STRING_SIZE + 1 are ever needed). Returns
 * STATUS_SUCCESS; STATUS_INVALID_PARAMETER when a pointer is NULL or no interface has that
 * LUID; STATUS_NO_MEMORY (documented as "STATUS_NOT_ENOUGH_MEMORY") when Length is too small
 * for the alias and its NUL, in which case nothing is written. PASSIVE_LEVEL.
 */
NDKSIM_API NETIO_STATUS NETIOAPI_API_
ConvertInterfaceLuidToAlias(_In_ const NET_LUID* InterfaceLuid,
                            _Out_writes_(Length) PWSTR InterfaceAlias, _In_ SIZE_T Length);

/**
 * Stores the LUID of the interface whose alias is the NUL-terminated UTF-16 InterfaceAlias
 * (compared exactly, code unit by code unit) in *InterfaceLuid. Returns STATUS_SUCCESS, or
 * STATUS_INVALID_PARAMETER when a pointer is NULL or no interface has that alias (then
 * *InterfaceLuid, if given, is zeroed). PASSIVE_LEVEL.
 */
NDKSIM_API NETIO_STATUS NETIOAPI_API_ ConvertInterfaceAliasToLuid(_In_ const WCHAR* InterfaceAlias,
                                                                  _Out_ PNET_LUID InterfaceLuid);

/**
 * Allocates and returns in *Table the unicast addresses of every interface of Family:
 * AF_INET, AF_INET6 (the platform's value or WS_AF_INET6) or AF_UNSPEC (both), in interface
 * index order. Free it with FreeMibTable. Returns STATUS_SUCCESS; STATUS_INVALID_PARAMETER
 * for a NULL Table or another Family; STATUS_NOT_FOUND when no interface has an address of
 * that family (*Table is then NULL); STATUS_NO_MEMORY when the table cannot be allocated. The
 * table is pool memory (tag 'MibT', reported by ndksim_kernel_pool_report while not freed).
 * PASSIVE_LEVEL.
 */
NDKSIM_API NETIO_STATUS NETIOAPI_API_
GetUnicastIpAddressTable(_In_ ADDRESS_FAMILY Family, _Out_ PMIB_UNICASTIPADDRESS_TABLE* Table);

/** Frees a table returned by GetUnicastIpAddressTable; NULL is ignored. PASSIVE_LEVEL. */
NDKSIM_API VOID NETIOAPI_API_ FreeMibTable(_In_ PVOID Memory);

#if NDKSIM_ABI_LAYOUT_CHECKS
NDKSIM_ASSERT_SIZE(NL_PREFIX_ORIGIN, 4);
NDKSIM_ASSERT_SIZE(NL_DAD_STATE, 4);
NDKSIM_ASSERT_SIZE(MIB_UNICASTIPADDRESS_ROW, 80);
NDKSIM_ASSERT_OFFSET(MIB_UNICASTIPADDRESS_ROW, InterfaceLuid, 32);
NDKSIM_ASSERT_OFFSET(MIB_UNICASTIPADDRESS_ROW, InterfaceIndex, 40);
NDKSIM_ASSERT_OFFSET(MIB_UNICASTIPADDRESS_ROW, PrefixOrigin, 44);
NDKSIM_ASSERT_OFFSET(MIB_UNICASTIPADDRESS_ROW, SuffixOrigin, 48);
NDKSIM_ASSERT_OFFSET(MIB_UNICASTIPADDRESS_ROW, ValidLifetime, 52);
NDKSIM_ASSERT_OFFSET(MIB_UNICASTIPADDRESS_ROW, PreferredLifetime, 56);
NDKSIM_ASSERT_OFFSET(MIB_UNICASTIPADDRESS_ROW, OnLinkPrefixLength, 60);
NDKSIM_ASSERT_OFFSET(MIB_UNICASTIPADDRESS_ROW, SkipAsSource, 61);
NDKSIM_ASSERT_OFFSET(MIB_UNICASTIPADDRESS_ROW, DadState, 64);
NDKSIM_ASSERT_OFFSET(MIB_UNICASTIPADDRESS_ROW, ScopeId, 68);
NDKSIM_ASSERT_OFFSET(MIB_UNICASTIPADDRESS_ROW, CreationTimeStamp, 72);
NDKSIM_ASSERT_OFFSET(MIB_UNICASTIPADDRESS_TABLE, Table, 8);
NDKSIM_ASSERT_SIZE(MIB_UNICASTIPADDRESS_TABLE, 88);
#endif

#ifdef __cplusplus
}
#endif
