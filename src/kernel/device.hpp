// SPDX-License-Identifier: MIT
#pragma once
// Device objects (device.cpp): the references work items hold on them, and the leak count.

#include <cstddef>

#include "wdm.h"

namespace ndksim::kernel::device {

/// Takes a reference on a device object (DEVICE_OBJECT.ReferenceCount), as a queued work item
/// does.
void reference(PDEVICE_OBJECT device);

/// Drops a reference; a device deleted while referenced is freed with its last reference.
void dereference(PDEVICE_OBJECT device);

/// Device objects not deleted, of `driver` or of every driver when it is null; logs each one
/// at error level when `log` is set.
std::size_t live_count(PDRIVER_OBJECT driver, bool log);

}  // namespace ndksim::kernel::device
