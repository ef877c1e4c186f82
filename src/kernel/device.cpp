// SPDX-License-Identifier: MIT
// IoCreateDevice / IoDeleteDevice. A device object, its extension and its DEVOBJ_EXTENSION are
// one host allocation; the simulator's registry of live devices (and their names, for the
// collision check) is kept beside it, keyed by the object's address.

#include "kernel/device.hpp"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include "kernel/irql.hpp"
#include "kernel/violation.hpp"
#include "util/log.hpp"

namespace ndksim::kernel::device {
namespace {

struct record {
    std::u16string name;
    bool deleted = false;
};

struct registry {
    std::mutex mutex;
    std::unordered_map<PDEVICE_OBJECT, record> devices;
};

registry& the_registry() {
    static registry* const instance = new registry;
    return *instance;
}

constexpr SIZE_T round16(SIZE_T n) {
    return (n + 15) & ~SIZE_T{15};
}

std::u16string name_of(const UNICODE_STRING* name) {
    if (name == nullptr || name->Buffer == nullptr) {
        return {};
    }
    return std::u16string(reinterpret_cast<const char16_t*>(name->Buffer),
                          name->Length / sizeof(WCHAR));
}

std::string narrow(const std::u16string& name) {
    std::string text;
    for (const char16_t c : name) {
        text += (c >= 0x20 && c < 0x7F) ? static_cast<char>(c) : '?';
    }
    return text;
}

// With the registry locked: unlinks the device from its driver's list.
void unlink(PDEVICE_OBJECT device) {
    PDEVICE_OBJECT* link = &device->DriverObject->DeviceObject;
    while (*link != nullptr && *link != device) {
        link = &(*link)->NextDevice;
    }
    if (*link == device) {
        *link = device->NextDevice;
    }
    device->NextDevice = nullptr;
}

}  // namespace

void reference(PDEVICE_OBJECT device) {
    registry& r = the_registry();
    const std::lock_guard lock(r.mutex);
    ++device->ReferenceCount;
}

void dereference(PDEVICE_OBJECT device) {
    registry& r = the_registry();
    bool free_it = false;
    {
        const std::lock_guard lock(r.mutex);
        --device->ReferenceCount;
        const auto it = r.devices.find(device);
        if (device->ReferenceCount == 0 && it != r.devices.end() && it->second.deleted) {
            r.devices.erase(it);
            free_it = true;
        }
    }
    if (free_it) {
        std::free(device);
    }
}

std::size_t live_count(PDRIVER_OBJECT driver, bool log) {
    registry& r = the_registry();
    const std::lock_guard lock(r.mutex);
    std::size_t count = 0;
    for (const auto& [device, rec] : r.devices) {
        if (rec.deleted || (driver != nullptr && device->DriverObject != driver)) {
            continue;
        }
        ++count;
        if (log) {
            NDKSIM_ERROR("leak: device object {} \"{}\" of driver {} was not deleted",
                         static_cast<const void*>(device), narrow(rec.name),
                         static_cast<const void*>(device->DriverObject));
        }
    }
    return count;
}

}  // namespace ndksim::kernel::device

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API NTSTATUS IoCreateDevice(PDRIVER_OBJECT DriverObject, ULONG DeviceExtensionSize,
                                   PUNICODE_STRING DeviceName, DEVICE_TYPE DeviceType,
                                   ULONG DeviceCharacteristics, BOOLEAN Exclusive,
                                   PDEVICE_OBJECT* DeviceObject) {
    // IoCreateDevice: "Callers of IoCreateDevice must be running at IRQL = PASSIVE_LEVEL."
    require_irql_at_most("IoCreateDevice", PASSIVE_LEVEL, "callers must be at PASSIVE_LEVEL");
    *DeviceObject = nullptr;
    const std::u16string name = device::name_of(DeviceName);
    const SIZE_T extension_offset = sizeof(DEVICE_OBJECT);
    const SIZE_T devobj_offset = extension_offset + device::round16(DeviceExtensionSize);
    const SIZE_T total = devobj_offset + device::round16(sizeof(DEVOBJ_EXTENSION));
    device::registry& r = device::the_registry();
    const std::lock_guard lock(r.mutex);
    if (!name.empty()) {
        for (const auto& [other, rec] : r.devices) {
            if (!rec.deleted && rec.name == name) {
                return STATUS_OBJECT_NAME_COLLISION;
            }
        }
    }
    auto* block = static_cast<unsigned char*>(std::aligned_alloc(16, total));
    if (block == nullptr) {
        return STATUS_INSUFFICIENT_RESOURCES;
    }
    std::memset(block, 0, total);
    auto* d = reinterpret_cast<PDEVICE_OBJECT>(block);
    auto* devobj = reinterpret_cast<PDEVOBJ_EXTENSION>(block + devobj_offset);
    d->Type = IO_TYPE_DEVICE;
    d->Size = static_cast<USHORT>(sizeof(DEVICE_OBJECT) + DeviceExtensionSize);
    d->ReferenceCount = 0;
    d->DriverObject = DriverObject;
    d->Flags = DO_DEVICE_INITIALIZING | (Exclusive ? DO_EXCLUSIVE : 0U);
    d->Characteristics = DeviceCharacteristics;
    d->DeviceExtension = DeviceExtensionSize != 0 ? block + extension_offset : nullptr;
    d->DeviceType = DeviceType;
    d->StackSize = 1;
    InitializeListHead(&d->Queue.ListEntry);
    KeInitializeEvent(&d->DeviceLock, SynchronizationEvent, TRUE);
    devobj->Type = IO_TYPE_DEVICE_OBJECT_EXTENSION;
    devobj->Size = static_cast<USHORT>(sizeof(DEVOBJ_EXTENSION));
    devobj->DeviceObject = d;
    d->DeviceObjectExtension = devobj;
    d->NextDevice = DriverObject->DeviceObject;
    DriverObject->DeviceObject = d;
    r.devices[d] = device::record{name, false};
    *DeviceObject = d;
    return STATUS_SUCCESS;
}

NDKSIM_API VOID IoDeleteDevice(PDEVICE_OBJECT DeviceObject) {
    // IoDeleteDevice: "Callers of IoDeleteDevice must be running at IRQL = PASSIVE_LEVEL."
    require_irql_at_most("IoDeleteDevice", PASSIVE_LEVEL, "callers must be at PASSIVE_LEVEL");
    device::registry& r = device::the_registry();
    {
        const std::lock_guard lock(r.mutex);
        const auto it = r.devices.find(DeviceObject);
        if (it == r.devices.end() || it->second.deleted) {
            report_violation("IoDeleteDevice",
                             "the device object is not live (deleted twice, or not created by "
                             "IoCreateDevice)",
                             current_irql());
            return;
        }
        device::unlink(DeviceObject);
        // A queued work item still refers to the device: Windows defers the free until the
        // reference is dropped, and so does the simulator.
        if (DeviceObject->ReferenceCount != 0) {
            it->second.deleted = true;
            it->second.name.clear();
            return;
        }
        r.devices.erase(it);
    }
    std::free(DeviceObject);
}

}  // extern "C"
