/* SPDX-License-Identifier: MIT */
/** \file
 * ntddk.h - the WDK header for non-WDM kernel drivers: everything of wdm.h plus the ntddk-level
 * routines the simulator provides. Driver sources that include <ntddk.h> compile unchanged.
 */
#pragma once

#include "wdm.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Copies min(SourceString->Length, DestinationString->MaximumLength) bytes and appends a NUL when
 * room is left; a NULL source sets Length to 0. MaximumLength and Buffer are unchanged. Any IRQL.
 */
NDKSIM_API VOID RtlCopyString(_Out_ PSTRING DestinationString, _In_opt_ const STRING* SourceString);

#ifdef __cplusplus
}
#endif
