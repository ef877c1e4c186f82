// SPDX-License-Identifier: MIT
#pragma once
// The check behind TIMER_OR_DPC_INVALID: memory a driver frees must not hold a kernel object
// the simulator still uses (a queued DPC, a set timer, a queued work item, an ERESOURCE not
// deleted). Windows bug-checks; the simulator reports a violation and first takes each such
// object out of its queue or table, so that no simulated thread touches the freed memory.

#include <cstddef>
#include <string_view>

namespace ndksim::kernel {

/// Removes every ERESOURCE in [begin, end) from the resource table (resource.cpp); returns how
/// many.
std::size_t forget_resources_in(const unsigned char* begin, const unsigned char* end);

/// Checks [block, block + size) before `function` frees it.
void check_freed_memory(std::string_view function, const void* block, std::size_t size);

}  // namespace ndksim::kernel
