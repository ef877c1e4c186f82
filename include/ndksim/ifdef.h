/* SPDX-License-Identifier: MIT */
/** \file
 * ifdef.h - network interface identifiers as the WDK's ifdef.h defines them: the interface
 * index (NET_IFINDEX, in wdm.h) and LUID, and the string size limit of interface names and
 * aliases. netioapi.h includes it.
 *
 * Every simulated adapter is one interface: ndksim_adapter_config's interface_index and
 * interface_alias set its index and alias (ndksim.h), and its LUID has IfType
 * IF_TYPE_ETHERNET_CSMACD.
 */
#pragma once

#include "wdm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef NET_IFINDEX IF_INDEX, *PIF_INDEX;

/** No interface has index 0; netioapi.h's routines return it when a lookup fails. */
#define NET_IFINDEX_UNSPECIFIED NDKSIM_SCAST(NET_IFINDEX, 0)
#define IFI_UNSPECIFIED NET_IFINDEX_UNSPECIFIED

/** The longest interface name or alias, in WCHARs, without the terminating NUL. */
#define IF_MAX_STRING_SIZE 256
#define NDIS_IF_MAX_STRING_SIZE IF_MAX_STRING_SIZE

/** IANA interface types of the LUID's IfType field (the ones the simulator uses). */
#define IF_TYPE_OTHER 1
#define IF_TYPE_ETHERNET_CSMACD 6
#define IF_TYPE_SOFTWARE_LOOPBACK 24

/**
 * A locally unique interface identifier: Value as a whole, or its fields (bits 0-23 reserved,
 * 24-47 NetLuidIndex, 48-63 IfType). Bit-fields of a 64-bit type are a GCC extension in C, as
 * they are a Microsoft one; __extension__ keeps -Wpedantic quiet.
 */
typedef union _NET_LUID_LH {
    ULONG64 Value;
    __extension__ struct {
        ULONG64 Reserved : 24;
        ULONG64 NetLuidIndex : 24;
        ULONG64 IfType : 16;
    } Info;
} NET_LUID_LH, *PNET_LUID_LH;
typedef NET_LUID_LH NET_LUID, *PNET_LUID;
typedef NET_LUID IF_LUID, *PIF_LUID;

#if NDKSIM_ABI_LAYOUT_CHECKS
NDKSIM_ASSERT_SIZE(NET_LUID, 8);
NDKSIM_ASSERT_SIZE(IF_INDEX, 4);
#endif

#ifdef __cplusplus
}
#endif
