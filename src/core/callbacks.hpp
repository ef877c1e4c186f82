#pragma once
// Consumer callback pointers as core stores them. The notification callbacks have exactly the
// C types of NDK_FN_CQ_NOTIFICATION_CALLBACK / NDK_FN_SRQ_NOTIFICATION_CALLBACK (PVOID,
// NTSTATUS); callbacks whose parameters are NDK structures are kept type-erased as opaque_fn and
// cast back to their exact type by src/api before the call.

#include <cstdint>

namespace ndksim::core {

/// A CQ or SRQ notification: (context, status).
using notify_fn = void (*)(void* context, std::int32_t status);

/// Any other consumer callback, stored without its signature.
using opaque_fn = void (*)();

}  // namespace ndksim::core
