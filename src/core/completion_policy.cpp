#include "core/completion_policy.hpp"

namespace ndksim::core {

completion_policy::completion_policy(completion_style style, std::uint32_t pending_percent,
                                     std::uint64_t seed)
    : style_(style), pending_percent_(pending_percent > 100 ? 100 : pending_percent), rng_(seed) {}

bool completion_policy::should_pend() {
    switch (style_) {
        case completion_style::inline_:
            return false;
        case completion_style::pending:
            return true;
        case completion_style::random:
            break;
    }
    std::lock_guard lock(mutex_);
    // Draw 0..99 by rejection so every percentage is exact, not biased by the modulo.
    std::uniform_int_distribution<std::uint32_t> dist(0, 99);
    return dist(rng_) < pending_percent_;
}

}  // namespace ndksim::core
