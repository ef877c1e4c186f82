// SPDX-License-Identifier: MIT
// IoCreateDeviceSecure (wdmsec.h): IoCreateDevice behind a check of the default SDDL string.
// The simulated machine has no other principals, so the descriptor itself is not kept.

#include "kernel/irql.hpp"
#include "wdmsec.h"

extern "C" {

NDKSIM_API NTSTATUS IoCreateDeviceSecure(PDRIVER_OBJECT DriverObject, ULONG DeviceExtensionSize,
                                         PUNICODE_STRING DeviceName, DEVICE_TYPE DeviceType,
                                         ULONG DeviceCharacteristics, BOOLEAN Exclusive,
                                         PCUNICODE_STRING DefaultSDDLString,
                                         const GUID* DeviceClassGuid,
                                         PDEVICE_OBJECT* DeviceObject) {
    static_cast<void>(DeviceClassGuid);
    ndksim::kernel::require_irql_at_most("IoCreateDeviceSecure", PASSIVE_LEVEL,
                                         "callers must be at PASSIVE_LEVEL");
    // IoCreateDeviceSecure: the default SDDL string may only hold a DACL ("D:...").
    if (DefaultSDDLString == nullptr || DefaultSDDLString->Buffer == nullptr ||
        DefaultSDDLString->Length < 2 * sizeof(WCHAR) || DefaultSDDLString->Buffer[0] != u'D' ||
        DefaultSDDLString->Buffer[1] != u':') {
        return STATUS_INVALID_PARAMETER;
    }
    return IoCreateDevice(DriverObject, DeviceExtensionSize, DeviceName, DeviceType,
                          DeviceCharacteristics, Exclusive, DeviceObject);
}

}  // extern "C"
