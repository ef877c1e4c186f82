// SPDX-License-Identifier: MIT
#pragma once
// What an adapter with a fault script or a coverage record (src/api/fault_engine.hpp) puts
// between the consumer and the provider. The device holds a pointer to it, nullptr otherwise:
// then objects get the plain dispatch tables and the engine skips the completion hook with one
// branch, so an adapter without a script pays nothing per call.

#include <cstdint>

#include "core/work_request.hpp"
#include "util/status.hpp"

namespace ndksim::core {

class object;
class qp;

/// What the engine does with a request completion after the hook saw it.
enum class completion_verdict : std::uint8_t {
    none,        ///< queue it as it is
    overrun_cq,  ///< overrun the CQ with it (rule 15: the CQ and its QPs die)
    fail_qp,     ///< queue it, then fail the QP and tear its connection down
};

class call_hooks {
  public:
    virtual ~call_hooks() = default;

    /// Before NDK function `function` runs on `o`: status::success lets it run; any other
    /// status is returned to the consumer instead and the function does not run. May choose
    /// the call's completion path (completion_policy::force_next, add_delay).
    virtual status before_call(const char* function, object& o) = 0;

    /// After `function` returned `s` to the consumer (inline; STATUS_PENDING for a call that
    /// completes through its callback).
    virtual void after_call(const char* function, status s) = 0;

    /// A consumer callback of `function` delivered `s` (request, create and close completions).
    virtual void on_callback(const char* function, status s) = 0;

    /// A completion about to be queued for `q`; `bytes` is the request's length (0 for the
    /// local operations). May change c.status.
    virtual completion_verdict on_completion(qp& q, completion& c, std::uint64_t bytes) = 0;
};

}  // namespace ndksim::core
