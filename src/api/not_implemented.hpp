#pragma once
// Dispatch entries whose behaviour belongs to a later part of the simulator. Every dispatch
// entry exists from the start (REFERENCE.md section 4: all provider functions are mandatory);
// these return STATUS_NOT_IMPLEMENTED (or do nothing, for VOID entries) and log an error
// naming themselves. tests/conformance checks this list, so it can only shrink.

#include <span>
#include <string_view>

#include "ndkpi.h"

namespace ndksim::api {

/// "NDK_QP_DISPATCH.NdkSend"-style names of every entry not implemented yet.
std::span<const std::string_view> not_implemented_entries() noexcept;

/// Logs that `entry` was called and returns STATUS_NOT_IMPLEMENTED.
NTSTATUS not_implemented(std::string_view entry) noexcept;

}  // namespace ndksim::api
