// SPDX-License-Identifier: MIT
#pragma once
// The simulated IRQL: one value per thread, starting at PASSIVE_LEVEL. Raising it changes
// nothing about scheduling (the thread is still preemptible by Linux); it only drives the rule
// checks of the routines that have IRQL requirements.

#include <cstdint>
#include <string_view>

namespace ndksim::kernel {

/// The calling thread's IRQL.
std::uint8_t current_irql() noexcept;

/// Sets the calling thread's IRQL without any check (the Ke* entry points check first).
void set_irql(std::uint8_t irql) noexcept;

/// Reports a violation of `rule` by `function` unless the current IRQL is <= `max`.
void require_irql_at_most(std::string_view function, std::uint8_t max, std::string_view rule);

/// Reports a violation of `rule` by `function` unless the current IRQL is >= `min`.
void require_irql_at_least(std::string_view function, std::uint8_t min, std::string_view rule);

}  // namespace ndksim::kernel
