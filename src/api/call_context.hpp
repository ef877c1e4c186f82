// SPDX-License-Identifier: MIT
#pragma once
// The NDK call the calling thread is inside, as the hooked dispatch tables (fault_tables.cpp)
// set it: the adapter's fault engine and the function's name, so a completion callback bound
// during the call reports its status to the same engine under the same name. Both null
// outside a hooked call (and always on an adapter without a fault engine).

#include "core/call_hooks.hpp"

namespace ndksim::api {

struct call_context {
    core::call_hooks* hooks = nullptr;
    const char* function = nullptr;
};

/// The calling thread's current hooked call.
call_context current_call() noexcept;

/// Sets it (the hooked tables, on entry and on return).
void set_current_call(call_context c) noexcept;

}  // namespace ndksim::api
