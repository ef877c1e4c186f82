// SPDX-License-Identifier: MIT
#pragma once
// System threads (thread.cpp).

#include <cstddef>

namespace ndksim::kernel::thread {

/// System threads whose start routine has not ended.
std::size_t running_count();

}  // namespace ndksim::kernel::thread
