// SPDX-License-Identifier: MIT
#pragma once
// Rule 17, context-reuse (opt-in; docs/verifier.md): a post whose RequestContext is that of a
// request still outstanding on the same queue (core/context_ledger.hpp defines
// "outstanding"). One check per post, around the call into the engine: the request is recorded
// before the engine can complete it, so a completion retrieved at once finds it, and forgotten
// when the post fails inline. The post goes on either way.

#include <cstdint>

#include "core/device.hpp"
#include "util/verifier.hpp"

namespace ndksim::api {

class context_check {
  public:
    /// Starts the check of a post by `call` on queue `queue` (named `queue_name` in the
    /// report, e.g. "initiator queue") of `owner` (the QP or SRQ) carrying `context`;
    /// `silent`: posted with NDK_OP_FLAG_SILENT_SUCCESS. With the verifier off, the rule off or
    /// a null context, one branch and nothing else.
    context_check(const core::object& owner, std::uint32_t queue, const char* queue_name,
                  const void* context, bool silent, const char* call) noexcept {
        if (owner.dev().verifier().on() && context != nullptr) [[unlikely]] {
            start(owner, queue, queue_name, context, silent, call);
        }
    }

    /// Ends the check with the post's `result`: forgets the request when the post failed
    /// inline, and reports a reuse with `result` as the call's status. Returns `result`.
    status finish(status result) const {
        if (owner_ != nullptr) [[unlikely]] {
            conclude(result);
        }
        return result;
    }

  private:
    void start(const core::object& owner, std::uint32_t queue, const char* queue_name,
               const void* context, bool silent, const char* call) noexcept;
    void conclude(status result) const;

    const core::object* owner_ = nullptr;  // non-null: the post was recorded
    std::uint32_t queue_ = 0;
    const char* queue_name_ = nullptr;
    const void* context_ = nullptr;
    const char* call_ = nullptr;
    core::context_ledger::earlier reused_{nullptr, false};
};

}  // namespace ndksim::api
