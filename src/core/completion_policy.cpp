// SPDX-License-Identifier: MIT
#include "core/completion_policy.hpp"

namespace ndksim::core {
namespace {

// The fault script's overrides for the NDK call the thread is inside (0: none, 1: inline,
// 2: pend), and its extra callback delay.
thread_local std::uint8_t t_forced = 0;
thread_local timing::sim_time t_delay = 0;

}  // namespace

void completion_policy::force_next(bool pend) noexcept {
    t_forced = pend ? 2 : 1;
}

void completion_policy::add_delay(timing::sim_time delay) noexcept {
    t_delay += delay;
}

timing::sim_time completion_policy::take_delay() noexcept {
    const timing::sim_time d = t_delay;
    t_delay = 0;
    return d;
}

void completion_policy::clear_overrides() noexcept {
    t_forced = 0;
    t_delay = 0;
}

completion_policy::completion_policy(completion_style style, std::uint32_t pending_percent,
                                     std::uint64_t seed)
    : style_(style), pending_percent_(pending_percent > 100 ? 100 : pending_percent), rng_(seed) {}

bool completion_policy::should_pend() {
    if (t_forced != 0) [[unlikely]] {
        const bool pend = t_forced == 2;
        t_forced = 0;
        return pend;
    }
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
