// SPDX-License-Identifier: MIT
#pragma once
// Chooses, per call, whether a function that may pend completes inline or pends
// (ndksim_completion_style). The random style draws from a seeded generator, so a consumer test
// exercises both of its code paths and repeats exactly with the same seed.

#include <cstdint>
#include <mutex>
#include <random>

#include "timing/sim_time.hpp"

namespace ndksim::core {

enum class completion_style : std::uint8_t { inline_, pending, random };

class completion_policy {
  public:
    /// `pending_percent` (0-100) is the chance of pending under the random style.
    completion_policy(completion_style style, std::uint32_t pending_percent, std::uint64_t seed);

    /// True when the next call should return STATUS_PENDING and complete through its callback.
    bool should_pend();

    completion_style style() const noexcept { return style_; }

    /// A fault script's choice for the calling thread's current NDK call (api/fault_engine):
    /// the next should_pend() on this thread returns `pend` whatever the style.
    static void force_next(bool pend) noexcept;

    /// Adds `delay` [ps] to the latency of the calling thread's next pending completion
    /// (object::finish_request takes it).
    static void add_delay(timing::sim_time delay) noexcept;

    /// Returns and clears the delay add_delay() left for this thread.
    static timing::sim_time take_delay() noexcept;

    /// Clears what force_next() and add_delay() left unused when the call ends.
    static void clear_overrides() noexcept;

  private:
    completion_style style_;
    std::uint32_t pending_percent_;
    std::mutex mutex_;
    std::mt19937_64 rng_;
};

}  // namespace ndksim::core
