// SPDX-License-Identifier: MIT
#pragma once
// A minimal driver for the I/O, work item and life cycle tests: DriverEntry creates one device
// object; DriverUnload deletes every device the driver still has.

#include "kernel_test.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {

inline VOID delete_all_devices(PDRIVER_OBJECT driver) {
    while (driver->DeviceObject != nullptr) {
        IoDeleteDevice(driver->DeviceObject);
    }
}

inline NTSTATUS one_device_entry(PDRIVER_OBJECT driver, PUNICODE_STRING registry_path) {
    UNREFERENCED_PARAMETER(registry_path);
    PDEVICE_OBJECT device = nullptr;
    const NTSTATUS status =
        IoCreateDevice(driver, 64, nullptr, FILE_DEVICE_UNKNOWN, 0, FALSE, &device);
    if (!NT_SUCCESS(status)) {
        return status;
    }
    device->Flags &= ~static_cast<ULONG>(DO_DEVICE_INITIALIZING);
    driver->DriverUnload = delete_all_devices;
    return STATUS_SUCCESS;
}

/// Loads the one-device driver for a test and unloads it at the end.
class DriverTest : public KernelTest {
  protected:
    void SetUp() override {
        KernelTest::SetUp();
        ASSERT_EQ(ndksim_kernel_load_driver(one_device_entry, "ndksimtest", &driver_),
                  STATUS_SUCCESS);
        device_ = driver_->DeviceObject;
    }
    void TearDown() override {
        if (driver_ != nullptr) {
            NDKSIM_LEAK_SUMMARY leaks{};
            EXPECT_EQ(ndksim_kernel_unload_driver(driver_, 20'000, &leaks), STATUS_SUCCESS);
            EXPECT_EQ(leaks.WorkItemsPending, 0U);
            EXPECT_EQ(leaks.DeviceObjects, 0U);
        }
        KernelTest::TearDown();
    }

    PDRIVER_OBJECT driver_ = nullptr;
    PDEVICE_OBJECT device_ = nullptr;
};

}  // namespace ndksim::kernel::test
