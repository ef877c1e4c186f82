#pragma once
// The set timers: one ordered table and one timer thread that fires them (timer.cpp).

#include <cstddef>

namespace ndksim::kernel::timer {

/// How many timers are set (armed and not yet expired, or periodic).
std::size_t set_count();

}  // namespace ndksim::kernel::timer
