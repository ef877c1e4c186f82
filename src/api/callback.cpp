// SPDX-License-Identifier: MIT
#include "api/callback.hpp"

#include <fmt/format.h>

#include "util/verifier.hpp"

namespace ndksim::api {

void report_call_irql(const char* function, std::string_view rule) {
    const std::uint8_t level = irql::current();
    if (!verifier::raise_thread_rule(
            verifier::rule::irql_of_call, function,
            fmt::format("called at {}: {}", irql::level_name(level), rule))) {
        irql::report_violation(function, rule, level);
    }
}

void callback_scope::report_bad_return() const {
    const std::uint8_t now = irql::current();
    if (now > level_) {
        irql::report_violation(callback_,
                               "returning from a callback at a raised IRQL (a callback must "
                               "return at DISPATCH_LEVEL, the IRQL it was called at)",
                               now);
    } else if (now < level_) {
        irql::report_violation(callback_,
                               "returning from a callback at a lowered IRQL (a callback must "
                               "return at DISPATCH_LEVEL, the IRQL it was called at)",
                               now);
    }
    if (irql::spin_locks_held() > locks_) {
        irql::report_violation(callback_,
                               "returning from a callback with a spin lock held (a callback "
                               "must release every spin lock it acquired)",
                               now);
    }
}

}  // namespace ndksim::api
