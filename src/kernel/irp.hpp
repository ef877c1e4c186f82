// SPDX-License-Identifier: MIT
#pragma once
// IRP routines (irp.cpp).

#include "wdm.h"

namespace ndksim::kernel::irp {

/// The dispatch routine a new driver object has for every major function: completes the IRP
/// with STATUS_INVALID_DEVICE_REQUEST, as Windows' default does.
NTSTATUS invalid_device_request(PDEVICE_OBJECT device, PIRP irp);

/// The pool tag of a four-character name as pool tools show it ("Irp " is 'Irp ' stored
/// little-endian).
constexpr ULONG pool_tag(const char (&name)[5]) {
    return static_cast<ULONG>(static_cast<unsigned char>(name[0])) |
           static_cast<ULONG>(static_cast<unsigned char>(name[1])) << 8 |
           static_cast<ULONG>(static_cast<unsigned char>(name[2])) << 16 |
           static_cast<ULONG>(static_cast<unsigned char>(name[3])) << 24;
}

}  // namespace ndksim::kernel::irp
