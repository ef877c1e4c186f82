// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "test_driver.hpp"
#include "wdm.h"
#include "wdmsec.h"

namespace ndksim::kernel::test {
namespace {

using Io = DriverTest;

TEST_F(Io, CreateDeviceFillsTheObjectAndLinksItToTheDriver) {
    PDEVICE_OBJECT d = nullptr;
    std::u16string name = u"\\Device\\NdksimTest";
    UNICODE_STRING s{static_cast<USHORT>(name.size() * 2), static_cast<USHORT>(name.size() * 2),
                     name.data()};
    ASSERT_EQ(
        IoCreateDevice(driver_, 100, &s, FILE_DEVICE_NETWORK, FILE_DEVICE_SECURE_OPEN, TRUE, &d),
        STATUS_SUCCESS);
    EXPECT_EQ(d->Type, IO_TYPE_DEVICE);
    EXPECT_EQ(d->Size, sizeof(DEVICE_OBJECT) + 100);
    EXPECT_EQ(d->DriverObject, driver_);
    EXPECT_EQ(driver_->DeviceObject, d) << "linked at the head";
    EXPECT_EQ(d->NextDevice, device_);
    EXPECT_EQ(d->Flags, static_cast<ULONG>(DO_DEVICE_INITIALIZING | DO_EXCLUSIVE));
    EXPECT_EQ(d->Characteristics, static_cast<ULONG>(FILE_DEVICE_SECURE_OPEN));
    EXPECT_EQ(d->DeviceType, static_cast<DEVICE_TYPE>(FILE_DEVICE_NETWORK));
    EXPECT_EQ(d->StackSize, 1);
    EXPECT_EQ(d->ReferenceCount, 0);
    ASSERT_NE(d->DeviceExtension, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(d->DeviceExtension) % 16, 0U);
    const auto* ext = static_cast<const unsigned char*>(d->DeviceExtension);
    EXPECT_EQ(std::vector<unsigned char>(ext, ext + 100), std::vector<unsigned char>(100, 0));
    ASSERT_NE(d->DeviceObjectExtension, nullptr);
    EXPECT_EQ(d->DeviceObjectExtension->Type, IO_TYPE_DEVICE_OBJECT_EXTENSION);
    EXPECT_EQ(d->DeviceObjectExtension->DeviceObject, d);
    EXPECT_EQ(ndksim_kernel_devices_live(driver_), 2U);

    PDEVICE_OBJECT twin = nullptr;
    EXPECT_EQ(IoCreateDevice(driver_, 0, &s, FILE_DEVICE_NETWORK, 0, FALSE, &twin),
              STATUS_OBJECT_NAME_COLLISION);
    EXPECT_EQ(twin, nullptr);
    IoDeleteDevice(d);
    EXPECT_EQ(driver_->DeviceObject, device_);
    EXPECT_EQ(IoCreateDevice(driver_, 0, &s, FILE_DEVICE_NETWORK, 0, FALSE, &twin), STATUS_SUCCESS)
        << "the name is free again";
    EXPECT_EQ(twin->DeviceExtension, nullptr);
    IoDeleteDevice(twin);
}

TEST_F(Io, DeletingADeviceTwiceIsAViolation) {
    PDEVICE_OBJECT d = nullptr;
    ASSERT_EQ(IoCreateDevice(driver_, 0, nullptr, FILE_DEVICE_UNKNOWN, 0, FALSE, &d),
              STATUS_SUCCESS);
    IoDeleteDevice(d);
    EXPECT_EQ(violations_of([&] { IoDeleteDevice(d); }), 1U);
}

TEST_F(Io, CreateDeviceAbovePassiveLevelIsAViolation) {
    PDEVICE_OBJECT d = nullptr;
    KIRQL old = PASSIVE_LEVEL;
    KeRaiseIrql(APC_LEVEL, &old);
    EXPECT_EQ(violations_of(
                  [&] { IoCreateDevice(driver_, 0, nullptr, FILE_DEVICE_UNKNOWN, 0, FALSE, &d); }),
              1U);
    KeLowerIrql(old);
    IoDeleteDevice(d);
}

TEST_F(Io, CreateDeviceSecureCreatesTheDeviceForADaclString) {
    PDEVICE_OBJECT d = nullptr;
    ASSERT_EQ(IoCreateDeviceSecure(driver_, 8, nullptr, FILE_DEVICE_NETWORK, 0, FALSE,
                                   &SDDL_DEVOBJ_SYS_ALL_ADM_ALL, nullptr, &d),
              STATUS_SUCCESS);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->DriverObject, driver_);
    EXPECT_EQ(d->DeviceType, static_cast<DEVICE_TYPE>(FILE_DEVICE_NETWORK));
    EXPECT_NE(d->DeviceExtension, nullptr);
    IoDeleteDevice(d);
}

TEST_F(Io, CreateDeviceSecureRefusesAStringWithoutADacl) {
    PDEVICE_OBJECT d = nullptr;
    std::u16string owner = u"O:BAG:SY";
    UNICODE_STRING s{static_cast<USHORT>(owner.size() * 2), static_cast<USHORT>(owner.size() * 2),
                     owner.data()};
    EXPECT_EQ(
        IoCreateDeviceSecure(driver_, 0, nullptr, FILE_DEVICE_NETWORK, 0, FALSE, &s, nullptr, &d),
        STATUS_INVALID_PARAMETER);
    EXPECT_EQ(IoCreateDeviceSecure(driver_, 0, nullptr, FILE_DEVICE_NETWORK, 0, FALSE, nullptr,
                                   nullptr, &d),
              STATUS_INVALID_PARAMETER);
    EXPECT_EQ(d, nullptr);
    EXPECT_EQ(ndksim_kernel_devices_live(driver_), 1U) << "only the fixture's device";
}

TEST_F(Io, AllocatedIrpHasItsStackLocationsAfterIt) {
    PIRP irp = IoAllocateIrp(3, FALSE);
    ASSERT_NE(irp, nullptr);
    EXPECT_EQ(irp->Type, IO_TYPE_IRP);
    EXPECT_EQ(irp->Size, IoSizeOfIrp(3));
    EXPECT_EQ(irp->Size, sizeof(IRP) + 3 * sizeof(IO_STACK_LOCATION));
    EXPECT_EQ(irp->StackCount, 3);
    EXPECT_EQ(irp->CurrentLocation, 4);
    auto* first = reinterpret_cast<PIO_STACK_LOCATION>(irp + 1);
    EXPECT_EQ(IoGetNextIrpStackLocation(irp), first + 2);
    EXPECT_EQ(ndksim_kernel_pool_live(0x20707249), 1U) << "pool tag 'Irp '";
    IoFreeIrp(irp);
    EXPECT_EQ(ndksim_kernel_pool_live(0x20707249), 0U);
    EXPECT_EQ(IoAllocateIrp(0, FALSE), nullptr);
}

struct Completion {
    int calls = 0;
    PDEVICE_OBJECT device = reinterpret_cast<PDEVICE_OBJECT>(1);
    NTSTATUS seen = STATUS_PENDING;
    NTSTATUS result = STATUS_MORE_PROCESSING_REQUIRED;
    static NTSTATUS routine(PDEVICE_OBJECT device, PIRP irp, PVOID context) {
        auto* c = static_cast<Completion*>(context);
        ++c->calls;
        c->device = device;
        c->seen = irp->IoStatus.Status;
        return c->result;
    }
};

NTSTATUS complete_with_success(PDEVICE_OBJECT, PIRP irp) {
    irp->IoStatus.Status = STATUS_SUCCESS;
    irp->IoStatus.Information = 42;
    IoCompleteRequest(irp, IO_NO_INCREMENT);
    return STATUS_SUCCESS;
}

TEST_F(Io, CallDriverDispatchesAndCompletionRunsTheOriginatorsRoutine) {
    driver_->MajorFunction[IRP_MJ_DEVICE_CONTROL] = complete_with_success;
    PIRP irp = IoAllocateIrp(1, FALSE);
    PIO_STACK_LOCATION next = IoGetNextIrpStackLocation(irp);
    next->MajorFunction = IRP_MJ_DEVICE_CONTROL;
    Completion c;
    IoSetCompletionRoutine(irp, Completion::routine, &c, TRUE, TRUE, TRUE);
    EXPECT_EQ(IoCallDriver(device_, irp), STATUS_SUCCESS);
    EXPECT_EQ(c.calls, 1);
    EXPECT_EQ(c.device, nullptr) << "the originator has no device object";
    EXPECT_EQ(c.seen, STATUS_SUCCESS);
    EXPECT_EQ(irp->IoStatus.Information, 42U);
    IoFreeIrp(irp);
}

TEST_F(Io, DefaultDispatchCompletesWithInvalidDeviceRequest) {
    PIRP irp = IoAllocateIrp(1, FALSE);
    IoGetNextIrpStackLocation(irp)->MajorFunction = IRP_MJ_READ;
    Completion c;
    IoSetCompletionRoutine(irp, Completion::routine, &c, FALSE, TRUE, FALSE);
    EXPECT_EQ(IoCallDriver(device_, irp), STATUS_INVALID_DEVICE_REQUEST);
    EXPECT_EQ(c.calls, 1);
    EXPECT_EQ(c.seen, STATUS_INVALID_DEVICE_REQUEST);
    IoFreeIrp(irp);
}

TEST_F(Io, CompletionRoutinesRunOnlyForTheirConditions) {
    PIRP irp = IoAllocateIrp(1, FALSE);
    Completion c;
    for (const NTSTATUS status : {STATUS_SUCCESS, STATUS_CANCELLED}) {
        IoReuseIrp(irp, status);
        IoSetCompletionRoutine(irp, Completion::routine, &c, FALSE, FALSE, TRUE);
        IoSetNextIrpStackLocation(irp);
        IoCompleteRequest(irp, IO_NO_INCREMENT);
    }
    EXPECT_EQ(c.calls, 0) << "only InvokeOnCancel, and the IRP was not cancelled";
    IoReuseIrp(irp, STATUS_CANCELLED);
    irp->Cancel = TRUE;
    IoSetCompletionRoutine(irp, Completion::routine, &c, FALSE, FALSE, TRUE);
    IoSetNextIrpStackLocation(irp);
    IoCompleteRequest(irp, IO_NO_INCREMENT);
    EXPECT_EQ(c.calls, 1);
    IoFreeIrp(irp);
}

TEST_F(Io, CompletionWalksUpTheStackAndFillsTheUserStatusAndEvent) {
    PIRP irp = IoAllocateIrp(2, FALSE);
    IO_STATUS_BLOCK iosb{};
    KEVENT done;
    KeInitializeEvent(&done, NotificationEvent, FALSE);
    irp->UserIosb = &iosb;
    irp->UserEvent = &done;
    // The originator's routine, then the driver at location 2 (device_) passes the IRP down
    // with a routine of its own; the driver at location 1 completes it.
    Completion originator;
    originator.result = STATUS_SUCCESS;
    IoSetCompletionRoutine(irp, Completion::routine, &originator, TRUE, TRUE, TRUE);
    IoSetNextIrpStackLocation(irp);
    IoGetCurrentIrpStackLocation(irp)->DeviceObject = device_;
    Completion middle;
    middle.result = STATUS_SUCCESS;
    IoCopyCurrentIrpStackLocationToNext(irp);
    IoSetCompletionRoutine(irp, Completion::routine, &middle, TRUE, TRUE, TRUE);
    IoSetNextIrpStackLocation(irp);
    irp->IoStatus.Status = STATUS_SUCCESS;
    irp->IoStatus.Information = 7;
    IoCompleteRequest(irp, IO_NO_INCREMENT);
    EXPECT_EQ(middle.calls, 1);
    EXPECT_EQ(middle.device, device_) << "the device of the driver that registered it";
    EXPECT_EQ(originator.calls, 1);
    EXPECT_EQ(originator.device, nullptr) << "the originator has no device object";
    EXPECT_EQ(iosb.Status, STATUS_SUCCESS);
    EXPECT_EQ(iosb.Information, 7U);
    EXPECT_EQ(KeReadStateEvent(&done), 1);
    EXPECT_EQ(violations_of([&] { IoCompleteRequest(irp, IO_NO_INCREMENT); }), 1U)
        << "completed twice";
    IoFreeIrp(irp);
}

TEST_F(Io, MoreProcessingRequiredStopsTheWalk) {
    PIRP irp = IoAllocateIrp(2, FALSE);
    KEVENT done;
    KeInitializeEvent(&done, NotificationEvent, FALSE);
    irp->UserEvent = &done;
    Completion originator;
    IoSetCompletionRoutine(irp, Completion::routine, &originator, TRUE, TRUE, TRUE);
    IoSetNextIrpStackLocation(irp);
    Completion middle;  // returns STATUS_MORE_PROCESSING_REQUIRED
    IoSetCompletionRoutine(irp, Completion::routine, &middle, TRUE, TRUE, TRUE);
    IoSetNextIrpStackLocation(irp);
    irp->IoStatus.Status = STATUS_UNSUCCESSFUL;
    IoCompleteRequest(irp, IO_NO_INCREMENT);
    EXPECT_EQ(middle.calls, 1);
    EXPECT_EQ(middle.seen, STATUS_UNSUCCESSFUL);
    EXPECT_EQ(originator.calls, 0);
    EXPECT_EQ(KeReadStateEvent(&done), 0);
    // The middle driver owns the IRP again and completes it once more from its location.
    IoCompleteRequest(irp, IO_NO_INCREMENT);
    EXPECT_EQ(originator.calls, 1);
    IoFreeIrp(irp);
}

TEST_F(Io, CompletingAnIrpNobodyWasSentIsAViolation) {
    PIRP irp = IoAllocateIrp(1, FALSE);
    irp->IoStatus.Status = STATUS_SUCCESS;
    EXPECT_EQ(violations_of([&] { IoCompleteRequest(irp, IO_NO_INCREMENT); }), 1U);
    IoFreeIrp(irp);
}

TEST_F(Io, CallingDriverWithoutAStackLocationLeftIsAViolation) {
    PIRP irp = IoAllocateIrp(1, FALSE);
    IoSetNextIrpStackLocation(irp);
    NTSTATUS status = STATUS_SUCCESS;
    EXPECT_EQ(violations_of([&] { status = IoCallDriver(device_, irp); }), 1U);
    EXPECT_EQ(status, STATUS_INVALID_PARAMETER);
    IoFreeIrp(irp);
}

}  // namespace
}  // namespace ndksim::kernel::test
