/* SPDX-License-Identifier: MIT */
/** \file
 * ndis.h - the WDK header of NDIS drivers, as far as an NDK provider or consumer needs it: all of
 * ntddk.h, the NDK interfaces (ndkpi.h, ndisndk.h: NDIS_HANDLE, NDIS_OBJECT_HEADER, the NDK OIDs
 * and status values of wdm.h) and the NDIS basics below.
 */
#pragma once

#include "ndisndk.h"
#include "ndkpi.h"
#include "ntddk.h"

#ifdef __cplusplus
extern "C" {
#endif

/** NDIS counted strings are UNICODE_STRINGs. */
typedef UNICODE_STRING NDIS_STRING, *PNDIS_STRING;
/** A constant NDIS_STRING from a narrow string literal: NDIS_STRING_CONST("Name"). */
#define NDIS_STRING_CONST(x) RTL_CONSTANT_STRING(L##x)

typedef PHYSICAL_ADDRESS NDIS_PHYSICAL_ADDRESS, *PNDIS_PHYSICAL_ADDRESS;

/** NDIS's names for the Rtl memory helpers. */
#define NdisZeroMemory(destination, length) RtlZeroMemory(destination, length)
#define NdisFillMemory(destination, length, fill) RtlFillMemory(destination, length, fill)
#define NdisMoveMemory(destination, source, length) RtlCopyMemory(destination, source, length)
#define NdisEqualMemory(source1, source2, length) RtlEqualMemory(source1, source2, length)

/**
 * NDIS spin locks: a KSPIN_LOCK with the IRQL to restore, and the NDIS routines over it. The
 * rules are those of the Ke routines they call (see ndksim_kernel.h).
 */
typedef struct _NDIS_SPIN_LOCK {
    KSPIN_LOCK SpinLock;
    KIRQL OldIrql;
} NDIS_SPIN_LOCK, *PNDIS_SPIN_LOCK;

/** Initializes the lock (KeInitializeSpinLock). */
static inline VOID NdisAllocateSpinLock(_Out_ PNDIS_SPIN_LOCK SpinLock) {
    KeInitializeSpinLock(&SpinLock->SpinLock);
}
/** Nothing to release: the lock owns no resources. */
static inline VOID NdisFreeSpinLock(_In_ PNDIS_SPIN_LOCK SpinLock) {
    UNREFERENCED_PARAMETER(SpinLock);
}
/** Raises to DISPATCH_LEVEL and takes the lock, keeping the IRQL to restore in the lock. */
static inline VOID NdisAcquireSpinLock(_Inout_ PNDIS_SPIN_LOCK SpinLock) {
    SpinLock->OldIrql = KeAcquireSpinLockRaiseToDpc(&SpinLock->SpinLock);
}
/** Releases the lock and returns to the IRQL NdisAcquireSpinLock kept. */
static inline VOID NdisReleaseSpinLock(_Inout_ PNDIS_SPIN_LOCK SpinLock) {
    KeReleaseSpinLock(&SpinLock->SpinLock, SpinLock->OldIrql);
}
/** Takes the lock at DISPATCH_LEVEL (the caller is already there). */
static inline VOID NdisDprAcquireSpinLock(_Inout_ PNDIS_SPIN_LOCK SpinLock) {
    KeAcquireSpinLockAtDpcLevel(&SpinLock->SpinLock);
}
/** Releases a lock taken with NdisDprAcquireSpinLock, staying at DISPATCH_LEVEL. */
static inline VOID NdisDprReleaseSpinLock(_Inout_ PNDIS_SPIN_LOCK SpinLock) {
    KeReleaseSpinLockFromDpcLevel(&SpinLock->SpinLock);
}

#ifdef __cplusplus
}
#endif
