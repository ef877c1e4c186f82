/* SPDX-License-Identifier: MIT */
/** \file
 * wdmsec.h - the SDDL strings of Wdmsec.lib, for IoCreateDeviceSecure and WDF control devices.
 * The simulator has no security descriptors: the strings are provided so driver sources compile
 * and can pass them on; nothing enforces them.
 */
#pragma once

#include "wdm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Kernel only: "D:P". */
extern NDKSIM_API const UNICODE_STRING SDDL_DEVOBJ_KERNEL_ONLY;
#define SDDL_DEVOBJ_INF_SUPPLIED SDDL_DEVOBJ_KERNEL_ONLY
/** System: all. */
extern NDKSIM_API const UNICODE_STRING SDDL_DEVOBJ_SYS_ALL;
/** System and administrators: all. */
extern NDKSIM_API const UNICODE_STRING SDDL_DEVOBJ_SYS_ALL_ADM_ALL;
/** System: all; administrators: read and execute. */
extern NDKSIM_API const UNICODE_STRING SDDL_DEVOBJ_SYS_ALL_ADM_RX;
/** System: all; administrators: read, write, execute; everyone: read. */
extern NDKSIM_API const UNICODE_STRING SDDL_DEVOBJ_SYS_ALL_ADM_RWX_WORLD_R;
/** As above, and restricted code: read. */
extern NDKSIM_API const UNICODE_STRING SDDL_DEVOBJ_SYS_ALL_ADM_RWX_WORLD_R_RES_R;
/** System: all; administrators: read, write, execute; everyone: read, write; restricted: read. */
extern NDKSIM_API const UNICODE_STRING SDDL_DEVOBJ_SYS_ALL_ADM_RWX_WORLD_RW_RES_R;
/** System: all; administrators, everyone and restricted code: read, write, execute. */
extern NDKSIM_API const UNICODE_STRING SDDL_DEVOBJ_SYS_ALL_ADM_RWX_WORLD_RWX_RES_RWX;

/**
 * IoCreateDevice with a default security descriptor (DefaultSDDLString, e.g. one of the strings
 * above) and an optional device class GUID. The simulator has no other users to keep out, so it
 * checks that the string is a DACL-only SDDL string ("D:" first, as IoCreateDeviceSecure
 * requires; STATUS_INVALID_PARAMETER otherwise) and then creates the device exactly as
 * IoCreateDevice does; the descriptor and the GUID are not kept. Rules: PASSIVE_LEVEL, and the
 * rules of IoCreateDevice.
 */
NDKSIM_API NTSTATUS IoCreateDeviceSecure(_In_ PDRIVER_OBJECT DriverObject,
                                         _In_ ULONG DeviceExtensionSize,
                                         _In_opt_ PUNICODE_STRING DeviceName,
                                         _In_ DEVICE_TYPE DeviceType,
                                         _In_ ULONG DeviceCharacteristics, _In_ BOOLEAN Exclusive,
                                         _In_ PCUNICODE_STRING DefaultSDDLString,
                                         _In_opt_ const GUID* DeviceClassGuid,
                                         _Out_ PDEVICE_OBJECT* DeviceObject);

#ifdef __cplusplus
}
#endif
