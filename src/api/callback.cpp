#include "api/callback.hpp"

namespace ndksim::api {

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
