/* SPDX-License-Identifier: MIT */
/** \file
 * wsk.h - Winsock Kernel (WSK) registration and the WSK provider NPI, the way kernel NDK
 * consumers reach the NDK: they register as a WSK client, capture the provider NPI, ask its
 * WskControlClient for the NDK extension (wskndk.h) and open adapters by interface index.
 * Names, values and x64 layouts are the WDK's.
 *
 * What the simulator provides: registration, capture and release of the provider NPI with the
 * documented waits and statuses, WskQueryProviderCharacteristics, WskDeregister's waits, and
 * the provider dispatch table whose WskControlClient returns the NDK extension. The simulated
 * WSK subsystem is available while at least one simulated adapter exists in the process (as a
 * host's stack attaches once its first interface is up): a capture made before the first
 * ndksim_adapter_create waits for it, up to its timeout. WSK sockets and name resolution
 * (WskSocket, WskSocketConnect, WskGetAddressInfo, WskFreeAddressInfo, WskGetNameInfo) are
 * not simulated: they fail with STATUS_NOT_SUPPORTED, log the refusal, and leave their IRP
 * untouched (it is never completed). docs/kernel-runtime.md, "WSK and the NDK extension".
 */
#pragma once

#include "wdm.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef STATUS_NOINTERFACE
#define STATUS_NOINTERFACE NDKSIM_SCAST(NTSTATUS, 0xC00002B9L)
#endif

/** Opaque types the WSK signatures name. */
typedef struct _ETHREAD* PETHREAD;
typedef PVOID PSECURITY_DESCRIPTOR;
typedef struct addrinfoexW ADDRINFOEXW, *PADDRINFOEXW;
typedef struct _WSK_CLIENT_CONNECTION_DISPATCH WSK_CLIENT_CONNECTION_DISPATCH,
    *PWSK_CLIENT_CONNECTION_DISPATCH;

/** The WSK subsystem's binding to one client; opaque (the WDK declares only the pointer). */
typedef PVOID PWSK_CLIENT;

#define WSKAPI NTAPI

/** WSK versions: major in the high byte, minor in the low byte. The simulator implements 1.0. */
#define MAKE_WSK_VERSION(Mj, Mn) \
    NDKSIM_SCAST(USHORT, NDKSIM_SCAST(USHORT, (Mj) << 8) | NDKSIM_SCAST(USHORT, (Mn)&0xff))
#define WSK_MAJOR_VERSION(V) NDKSIM_SCAST(UCHAR, (V) >> 8)
#define WSK_MINOR_VERSION(V) NDKSIM_SCAST(UCHAR, V)

/** WskCaptureProviderNPI's WaitTimeout: do not wait, or wait for ever. Other values are ms. */
#define WSK_NO_WAIT 0
#define WSK_INFINITE_WAIT 0xffffffff

/** The range of WSK versions the provider implements (WskQueryProviderCharacteristics). */
typedef struct _WSK_PROVIDER_CHARACTERISTICS {
    USHORT HighestVersion;
    USHORT LowestVersion;
} WSK_PROVIDER_CHARACTERISTICS, *PWSK_PROVIDER_CHARACTERISTICS;

/** A client-level event; no event types are defined, and the simulator never calls it. */
typedef NTSTATUS(WSKAPI* PFN_WSK_CLIENT_EVENT)(_In_opt_ PVOID ClientContext, _In_ ULONG EventType,
                                               _In_reads_bytes_opt_(InformationLength)
                                                   PVOID Information,
                                               _In_ SIZE_T InformationLength);

/** Not simulated: STATUS_NOT_SUPPORTED, the IRP is left untouched. <= DISPATCH_LEVEL. */
typedef NTSTATUS(WSKAPI* PFN_WSK_SOCKET)(
    _In_ PWSK_CLIENT Client, _In_ ADDRESS_FAMILY AddressFamily, _In_ USHORT SocketType,
    _In_ ULONG Protocol, _In_ ULONG Flags, _In_opt_ PVOID SocketContext,
    _In_opt_ const VOID* Dispatch, _In_opt_ PEPROCESS OwningProcess, _In_opt_ PETHREAD OwningThread,
    _In_opt_ PSECURITY_DESCRIPTOR SecurityDescriptor, _Inout_ PIRP Irp);

/** Not simulated: STATUS_NOT_SUPPORTED, the IRP is left untouched. <= DISPATCH_LEVEL. */
typedef NTSTATUS(WSKAPI* PFN_WSK_SOCKET_CONNECT)(
    _In_ PWSK_CLIENT Client, _In_ USHORT SocketType, _In_ ULONG Protocol,
    _In_ PSOCKADDR LocalAddress, _In_ PSOCKADDR RemoteAddress, _Reserved_ ULONG Flags,
    _In_opt_ PVOID SocketContext, _In_opt_ const WSK_CLIENT_CONNECTION_DISPATCH* Dispatch,
    _In_opt_ PEPROCESS OwningProcess, _In_opt_ PETHREAD OwningThread,
    _In_opt_ PSECURITY_DESCRIPTOR SecurityDescriptor, _Inout_ PIRP Irp);

/**
 * Client control operations. The simulator implements WSKNDK_GET_WSK_PROVIDER_NDK_DISPATCH
 * (wskndk.h) and answers every other ControlCode with STATUS_NOT_SUPPORTED. <= DISPATCH_LEVEL.
 */
typedef NTSTATUS(WSKAPI* PFN_WSK_CONTROL_CLIENT)(
    _In_ PWSK_CLIENT Client, _In_ ULONG ControlCode, _In_ SIZE_T InputSize,
    _In_reads_bytes_opt_(InputSize) PVOID InputBuffer, _In_ SIZE_T OutputSize,
    _Out_writes_bytes_opt_(OutputSize) PVOID OutputBuffer, _Out_opt_ SIZE_T* OutputSizeReturned,
    _Inout_opt_ PIRP Irp);

/** Not simulated: STATUS_NOT_SUPPORTED, the IRP is left untouched. PASSIVE_LEVEL. */
typedef NTSTATUS(WSKAPI* PFN_WSK_GET_ADDRESS_INFO)(
    _In_ PWSK_CLIENT Client, _In_opt_ PUNICODE_STRING NodeName,
    _In_opt_ PUNICODE_STRING ServiceName, _In_opt_ ULONG NameSpace, _In_opt_ GUID* Provider,
    _In_opt_ PADDRINFOEXW Hints, _Outptr_ PADDRINFOEXW* Result, _In_opt_ PEPROCESS OwningProcess,
    _In_opt_ PETHREAD OwningThread, _Inout_ PIRP Irp);

/** Not simulated: logged and ignored (no WskGetAddressInfo result can exist). PASSIVE_LEVEL. */
typedef VOID(WSKAPI* PFN_WSK_FREE_ADDRESS_INFO)(_In_ PWSK_CLIENT Client,
                                                _In_ PADDRINFOEXW AddrInfo);

/** Not simulated: STATUS_NOT_SUPPORTED, the IRP is left untouched. PASSIVE_LEVEL. */
typedef NTSTATUS(WSKAPI* PFN_WSK_GET_NAME_INFO)(_In_ PWSK_CLIENT Client, _In_ PSOCKADDR SockAddr,
                                                _In_ ULONG SockAddrLength,
                                                _Out_opt_ PUNICODE_STRING NodeName,
                                                _Out_opt_ PUNICODE_STRING ServiceName,
                                                _In_ ULONG Flags, _In_opt_ PEPROCESS OwningProcess,
                                                _In_opt_ PETHREAD OwningThread, _Inout_ PIRP Irp);

/** The client's table: the WSK version it asks for and its optional event callback. */
typedef struct _WSK_CLIENT_DISPATCH {
    USHORT Version;
    USHORT Reserved;
    PFN_WSK_CLIENT_EVENT WskClientEvent;
} WSK_CLIENT_DISPATCH, *PWSK_CLIENT_DISPATCH;

/** The provider's table (Version is MAKE_WSK_VERSION(1, 0)). */
typedef struct _WSK_PROVIDER_DISPATCH {
    USHORT Version;
    USHORT Reserved;
    PFN_WSK_SOCKET WskSocket;
    PFN_WSK_SOCKET_CONNECT WskSocketConnect;
    PFN_WSK_CONTROL_CLIENT WskControlClient;
    PFN_WSK_GET_ADDRESS_INFO WskGetAddressInfo;
    PFN_WSK_FREE_ADDRESS_INFO WskFreeAddressInfo;
    PFN_WSK_GET_NAME_INFO WskGetNameInfo;
} WSK_PROVIDER_DISPATCH, *PWSK_PROVIDER_DISPATCH;

typedef struct _WSK_CLIENT_NPI {
    PVOID ClientContext;
    const WSK_CLIENT_DISPATCH* Dispatch;
} WSK_CLIENT_NPI, *PWSK_CLIENT_NPI;

typedef struct _WSK_PROVIDER_NPI {
    PWSK_CLIENT Client;
    const WSK_PROVIDER_DISPATCH* Dispatch;
} WSK_PROVIDER_NPI, *PWSK_PROVIDER_NPI;

/**
 * A registration instance, initialized by WskRegister; the client must not touch it. The
 * simulator keeps its registration outside it and marks the block registered or deregistered.
 */
typedef struct _WSK_REGISTRATION {
    ULONGLONG ReservedRegistrationState;
    PVOID ReservedRegistrationContext;
    KSPIN_LOCK ReservedRegistrationLock;
} WSK_REGISTRATION, *PWSK_REGISTRATION;

/**
 * Registers a WSK client; one WskDeregister must follow each success, with the same block, which
 * must stay allocated meanwhile. Returns STATUS_SUCCESS, or STATUS_INVALID_PARAMETER for a NULL
 * pointer or client Dispatch, or a block that is already registered. PASSIVE_LEVEL.
 */
NDKSIM_API NTSTATUS WskRegister(_In_ PWSK_CLIENT_NPI WskClientNpi,
                                _Out_ PWSK_REGISTRATION WskRegistration);

/**
 * Captures the provider NPI, waiting up to WaitTimeout ms (WSK_NO_WAIT: not at all;
 * WSK_INFINITE_WAIT: for ever) for the WSK subsystem to become available, that is for a
 * simulated adapter to exist. Returns STATUS_SUCCESS with *WskProviderNpi filled (one
 * WskReleaseProviderNPI must follow); STATUS_DEVICE_NOT_READY when the subsystem did not become
 * available within the wait, or the registration was deregistered (before or during the wait);
 * STATUS_NOINTERFACE when the client's Dispatch->Version is not one the provider implements
 * (only 1.0); STATUS_INVALID_PARAMETER for NULL pointers or a block WskRegister never
 * initialized. Rule: PASSIVE_LEVEL unless WaitTimeout is WSK_NO_WAIT, then <= DISPATCH_LEVEL.
 */
NDKSIM_API NTSTATUS WskCaptureProviderNPI(_In_ PWSK_REGISTRATION WskRegistration,
                                          _In_ ULONG WaitTimeout,
                                          _Out_ PWSK_PROVIDER_NPI WskProviderNpi);

/**
 * Releases one capture. Releasing more often than capturing is logged and ignored.
 * <= DISPATCH_LEVEL.
 */
NDKSIM_API VOID WskReleaseProviderNPI(_In_ PWSK_REGISTRATION WskRegistration);

/**
 * The provider's version range ({1.0, 1.0}). Returns STATUS_SUCCESS, STATUS_DEVICE_NOT_READY
 * while the subsystem is not available or after WskDeregister, or STATUS_INVALID_PARAMETER for
 * NULL pointers. <= DISPATCH_LEVEL.
 */
NDKSIM_API NTSTATUS
WskQueryProviderCharacteristics(_In_ PWSK_REGISTRATION WskRegistration,
                                _Out_ PWSK_PROVIDER_CHARACTERISTICS WskProviderCharacteristics);

/**
 * Deregisters. Waits until every captured NPI is released and every call into the provider
 * tables has returned (captures blocked in WskCaptureProviderNPI return STATUS_DEVICE_NOT_READY
 * at once); a warning is logged every 10 s while it waits. NDK adapters opened through the
 * registration and not closed stay open and are reported by ndksim_kernel_wsk_report.
 * PASSIVE_LEVEL.
 */
NDKSIM_API VOID WskDeregister(_In_ PWSK_REGISTRATION WskRegistration);

/* ------------------------------------------------------------------------------------------ */
/* Simulator only                                                                              */
/* ------------------------------------------------------------------------------------------ */

/**
 * Leak report for driver unload: logs at error level every WSK registration not deregistered
 * (with its captures not released) and every NDK adapter opened with WskOpenNdkAdapter and not
 * closed with WskCloseNdkAdapter (its interface index and its adapter's live NDK object count,
 * ndksim_adapter_live_objects), and the NDK objects WskCloseNdkAdapter found still open since
 * the previous report (each close names them in its own log line). Returns the sum: the
 * registrations, the adapters and those objects.
 */
NDKSIM_API SIZE_T ndksim_kernel_wsk_report(void);

#if NDKSIM_ABI_LAYOUT_CHECKS
NDKSIM_ASSERT_SIZE(WSK_CLIENT_DISPATCH, 0x10);
NDKSIM_ASSERT_OFFSET(WSK_CLIENT_DISPATCH, WskClientEvent, 0x08);
NDKSIM_ASSERT_SIZE(WSK_PROVIDER_DISPATCH, 0x38);
NDKSIM_ASSERT_OFFSET(WSK_PROVIDER_DISPATCH, WskSocket, 0x08);
NDKSIM_ASSERT_OFFSET(WSK_PROVIDER_DISPATCH, WskControlClient, 0x18);
NDKSIM_ASSERT_OFFSET(WSK_PROVIDER_DISPATCH, WskGetNameInfo, 0x30);
NDKSIM_ASSERT_SIZE(WSK_CLIENT_NPI, 0x10);
NDKSIM_ASSERT_SIZE(WSK_PROVIDER_NPI, 0x10);
NDKSIM_ASSERT_OFFSET(WSK_PROVIDER_NPI, Dispatch, 0x08);
NDKSIM_ASSERT_SIZE(WSK_REGISTRATION, 0x18);
NDKSIM_ASSERT_OFFSET(WSK_REGISTRATION, ReservedRegistrationContext, 0x08);
NDKSIM_ASSERT_OFFSET(WSK_REGISTRATION, ReservedRegistrationLock, 0x10);
NDKSIM_ASSERT_SIZE(WSK_PROVIDER_CHARACTERISTICS, 4);
#endif

#ifdef __cplusplus
}
#endif
