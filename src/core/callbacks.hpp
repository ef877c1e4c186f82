#pragma once
// Consumer notification callbacks as core stores them: exactly the C types of
// NDK_FN_CQ_NOTIFICATION_CALLBACK / NDK_FN_SRQ_NOTIFICATION_CALLBACK (PVOID, NTSTATUS).
// Callbacks whose parameters are NDK structures are bound to their context by src/api instead
// (connect_event_fn, disconnect_fn, request_fn).

#include <cstdint>

namespace ndksim::core {

/// A CQ or SRQ notification: (context, status).
using notify_fn = void (*)(void* context, std::int32_t status);

}  // namespace ndksim::core
