/* SPDX-License-Identifier: MIT */
/*
 * driver.c - the driver's entry and unload routines. The transport itself lives in rsock_*.c;
 * its users (other drivers, or the test that loads this one) call the Rsock* routines.
 */
#include "rsock_internal.h"

DRIVER_INITIALIZE DriverEntry;
static DRIVER_UNLOAD RsockDriverUnload;

#ifdef ALLOC_PRAGMA
#pragma alloc_text(INIT, DriverEntry)
#pragma alloc_text(PAGE, RsockDriverUnload)
#endif

static VOID RsockDriverUnload(_In_ PDRIVER_OBJECT DriverObject) {
    UNREFERENCED_PARAMETER(DriverObject);
    PAGED_CODE();
    RsockShutdown();
    KdPrint(("rsock: unloaded\n"));
}

NTSTATUS DriverEntry(_In_ PDRIVER_OBJECT DriverObject, _In_ PUNICODE_STRING RegistryPath) {
    NTSTATUS status;
    KdPrint(("rsock: loading from %wZ\n", RegistryPath));
    status = RsockStartup(DriverObject);
    if (!NT_SUCCESS(status)) {
        DbgPrintEx(DPFLTR_IHVNETWORK_ID, DPFLTR_ERROR_LEVEL, "rsock: startup failed: %#x\n",
                   (unsigned)status);
        return status;
    }
    DriverObject->DriverUnload = RsockDriverUnload;
    return STATUS_SUCCESS;
}
