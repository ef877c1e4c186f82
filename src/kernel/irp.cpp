// SPDX-License-Identifier: MIT
// IRPs: allocation, IoCallDriver and IoCompleteRequest's walk up the stack locations.

#include "kernel/irp.hpp"

#include <cstring>

#include "kernel/irql.hpp"
#include "kernel/violation.hpp"

namespace ndksim::kernel::irp {
namespace {

constexpr ULONG k_irp_tag = pool_tag("Irp ");

PIO_STACK_LOCATION first_location(PIRP irp) {
    return reinterpret_cast<PIO_STACK_LOCATION>(reinterpret_cast<unsigned char*>(irp) +
                                                sizeof(IRP));
}

// Whether a location's completion routine runs for the IRP's final status.
bool invokes(const IO_STACK_LOCATION& location, const IRP& irp) {
    if (location.CompletionRoutine == nullptr) {
        return false;
    }
    if (irp.Cancel && (location.Control & SL_INVOKE_ON_CANCEL) != 0) {
        return true;
    }
    return NT_SUCCESS(irp.IoStatus.Status) ? (location.Control & SL_INVOKE_ON_SUCCESS) != 0
                                           : (location.Control & SL_INVOKE_ON_ERROR) != 0;
}

}  // namespace

NTSTATUS invalid_device_request(PDEVICE_OBJECT device, PIRP irp) {
    UNREFERENCED_PARAMETER(device);
    irp->IoStatus.Status = STATUS_INVALID_DEVICE_REQUEST;
    irp->IoStatus.Information = 0;
    IoCompleteRequest(irp, IO_NO_INCREMENT);
    return STATUS_INVALID_DEVICE_REQUEST;
}

}  // namespace ndksim::kernel::irp

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API VOID IoInitializeIrp(PIRP Irp, USHORT PacketSize, CCHAR StackSize) {
    // IoInitializeIrp: "Callers ... must be running at IRQL <= DISPATCH_LEVEL."
    require_irql_at_most("IoInitializeIrp", DISPATCH_LEVEL,
                         "callers must be at IRQL <= DISPATCH_LEVEL");
    std::memset(Irp, 0, PacketSize);
    Irp->Type = IO_TYPE_IRP;
    Irp->Size = PacketSize;
    Irp->StackCount = StackSize;
    Irp->CurrentLocation = static_cast<CHAR>(StackSize + 1);
    InitializeListHead(&Irp->ThreadListEntry);
    Irp->Tail.Overlay.CurrentStackLocation = irp::first_location(Irp) + StackSize;
}

NDKSIM_API PIRP IoAllocateIrp(CCHAR StackSize, BOOLEAN ChargeQuota) {
    UNREFERENCED_PARAMETER(ChargeQuota);
    // IoAllocateIrp: "Callers ... must be running at IRQL <= DISPATCH_LEVEL."
    require_irql_at_most("IoAllocateIrp", DISPATCH_LEVEL,
                         "callers must be at IRQL <= DISPATCH_LEVEL");
    if (StackSize < 1) {
        return nullptr;
    }
    const USHORT size = IoSizeOfIrp(StackSize);
    auto* irp = static_cast<PIRP>(ExAllocatePoolWithTag(NonPagedPoolNx, size, irp::k_irp_tag));
    if (irp != nullptr) {
        IoInitializeIrp(irp, size, StackSize);
    }
    return irp;
}

NDKSIM_API VOID IoReuseIrp(PIRP Irp, NTSTATUS Iostatus) {
    require_irql_at_most("IoReuseIrp", DISPATCH_LEVEL, "callers must be at IRQL <= DISPATCH_LEVEL");
    const UCHAR allocation_flags = Irp->AllocationFlags;
    IoInitializeIrp(Irp, Irp->Size, Irp->StackCount);
    Irp->AllocationFlags = allocation_flags;
    Irp->IoStatus.Status = Iostatus;
}

NDKSIM_API VOID IoFreeIrp(PIRP Irp) {
    // IoFreeIrp: "Callers ... must be running at IRQL <= DISPATCH_LEVEL."
    require_irql_at_most("IoFreeIrp", DISPATCH_LEVEL, "callers must be at IRQL <= DISPATCH_LEVEL");
    if (Irp->Type != IO_TYPE_IRP) {
        report_violation("IoFreeIrp", "the pointer is not an IRP", current_irql());
        return;
    }
    Irp->Type = 0;
    ExFreePoolWithTag(Irp, irp::k_irp_tag);
}

NDKSIM_API NTSTATUS IofCallDriver(PDEVICE_OBJECT DeviceObject, PIRP Irp) {
    // IoCallDriver: "Callers ... must be running at IRQL <= DISPATCH_LEVEL."
    require_irql_at_most("IoCallDriver", DISPATCH_LEVEL,
                         "callers must be at IRQL <= DISPATCH_LEVEL");
    if (Irp->CurrentLocation <= 1) {
        // Windows bug-checks with NO_MORE_IRP_STACK_LOCATIONS.
        report_violation("IoCallDriver", "the IRP has no stack location left for the driver",
                         current_irql());
        return STATUS_INVALID_PARAMETER;
    }
    IoSetNextIrpStackLocation(Irp);
    PIO_STACK_LOCATION location = IoGetCurrentIrpStackLocation(Irp);
    location->DeviceObject = DeviceObject;
    const PDRIVER_DISPATCH routine =
        DeviceObject->DriverObject->MajorFunction[location->MajorFunction];
    return routine(DeviceObject, Irp);
}

NDKSIM_API VOID IofCompleteRequest(PIRP Irp, CCHAR PriorityBoost) {
    UNREFERENCED_PARAMETER(PriorityBoost);
    // IoCompleteRequest: "Callers ... must be running at IRQL <= DISPATCH_LEVEL."
    require_irql_at_most("IoCompleteRequest", DISPATCH_LEVEL,
                         "callers must be at IRQL <= DISPATCH_LEVEL");
    const CHAR top = static_cast<CHAR>(Irp->StackCount + 1);
    if (Irp->CurrentLocation > top) {
        // Windows bug-checks with MULTIPLE_IRP_COMPLETE_REQUESTS.
        report_violation("IoCompleteRequest", "the IRP was already completed", current_irql());
        return;
    }
    if (Irp->CurrentLocation == top) {
        // No driver holds a location: the IRP was never sent with IoCallDriver (or
        // IoSetNextIrpStackLocation), so no completion routine could be found.
        report_violation("IoCompleteRequest",
                         "the IRP has no current stack location (it was not sent to a driver)",
                         current_irql());
        return;
    }
    if (Irp->IoStatus.Status == STATUS_PENDING) {
        report_violation("IoCompleteRequest", "the IRP's status is STATUS_PENDING", current_irql());
    }
    PIO_STACK_LOCATION location = IoGetCurrentIrpStackLocation(Irp);
    for (;;) {
        IoSkipCurrentIrpStackLocation(Irp);  // the location above becomes current
        Irp->PendingReturned = (location->Control & SL_PENDING_RETURNED) != 0 ? TRUE : FALSE;
        const bool invoke = irp::invokes(*location, *Irp);
        const PIO_COMPLETION_ROUTINE routine = location->CompletionRoutine;
        PVOID const context = location->Context;
        location->CompletionRoutine = nullptr;
        location->Context = nullptr;
        location->Control = 0;
        if (invoke) {
            // The routine gets the device object of the driver that registered it: the one
            // whose location is now current; none for the IRP's originator.
            PDEVICE_OBJECT const device = Irp->CurrentLocation == top
                                              ? nullptr
                                              : IoGetCurrentIrpStackLocation(Irp)->DeviceObject;
            if (routine(device, Irp, context) == STATUS_MORE_PROCESSING_REQUIRED) {
                return;
            }
        } else if (Irp->PendingReturned && Irp->CurrentLocation < top) {
            // A driver without a completion routine inherits the pending mark.
            IoMarkIrpPending(Irp);
        }
        if (Irp->CurrentLocation == top) {
            break;
        }
        ++location;
    }
    // Past the top: the IRP is complete. There is no issuing thread to hand it to, so the
    // simulator only reports the result where the originator asked for it.
    Irp->CurrentLocation = static_cast<CHAR>(top + 1);
    ++Irp->Tail.Overlay.CurrentStackLocation;
    if (Irp->UserIosb != nullptr) {
        *Irp->UserIosb = Irp->IoStatus;
    }
    if (Irp->UserEvent != nullptr) {
        KeSetEvent(Irp->UserEvent, IO_NO_INCREMENT, FALSE);
    }
}

}  // extern "C"
