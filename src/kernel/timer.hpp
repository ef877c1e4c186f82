// SPDX-License-Identifier: MIT
#pragma once
// The set timers: one ordered table and one timer thread that fires them (timer.cpp).

#include <cstddef>

namespace ndksim::kernel::timer {

/// How many timers are set (armed and not yet expired, or periodic).
std::size_t set_count();

/// Disarms every set timer that lies in [begin, end) (memory being freed); returns how many.
std::size_t forget_in(const unsigned char* begin, const unsigned char* end);

}  // namespace ndksim::kernel::timer
