// SPDX-License-Identifier: MIT
#pragma once
// Consumer notification callbacks as core stores them. Like every other consumer callback
// (connect_event_fn, disconnect_fn, request_fn), a CQ or SRQ notification
// (NDK_FN_CQ_NOTIFICATION_CALLBACK / NDK_FN_SRQ_NOTIFICATION_CALLBACK) is bound to its context
// by src/api, which also runs it at DISPATCH_LEVEL (api/callback.hpp).

#include <cstdint>

#include "util/inplace_function.hpp"

namespace ndksim::core {

/// A CQ or SRQ notification bound to its context; receives the status.
using notify_fn = util::inplace_function<void(std::int32_t), 32>;

}  // namespace ndksim::core
