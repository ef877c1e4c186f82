// SPDX-License-Identifier: MIT
#include "api/context_check.hpp"

#include <fmt/format.h>

namespace ndksim::api {

void context_check::start(const core::object& owner, std::uint32_t queue, const char* queue_name,
                          const void* context, bool silent, const char* call) noexcept {
    if (!verifier::enabled(verifier::rule::context_reuse)) {
        return;
    }
    const core::outstanding_contexts::posted p =
        owner.dev().contexts().post(queue, context, call, silent);
    if (!p.recorded) {
        return;
    }
    owner_ = &owner;
    queue_ = queue;
    queue_name_ = queue_name;
    context_ = context;
    call_ = call;
    reused_ = p.reused;
}

void context_check::conclude(status result) const {
    if (result != status::success) {
        owner_->dev().contexts().refused(queue_, context_);
    }
    if (reused_.call == nullptr) {
        return;
    }
    const char* why = reused_.silent
                          ? "posted with NDK_OP_FLAG_SILENT_SUCCESS, and no later completion of "
                            "the queue has been retrieved since"
                          : "its completion has not been retrieved yet";
    owner_->dev().verifier().raise(
        verifier::rule::context_reuse, owner_->ident(), call_, result,
        fmt::format("RequestContext {} is that of an earlier {} still outstanding on the {} ({})",
                    context_, reused_.call, queue_name_, why));
}

}  // namespace ndksim::api
