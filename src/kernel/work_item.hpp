// SPDX-License-Identifier: MIT
#pragma once
// I/O work items and the simulated system worker threads (work_item.cpp).

#include <cstddef>
#include <cstdint>

#include "wdm.h"

namespace ndksim::kernel::work_item {

/// Work items queued or running for `driver` (every driver when null).
std::size_t pending(PDRIVER_OBJECT driver);

/// Waits until `driver` has no work item queued or running, or the interrupt time reaches
/// `deadline`; true when none is left.
bool wait_idle(PDRIVER_OBJECT driver, std::int64_t deadline);

/// Removes every queued work item that lies in [begin, end) (memory being freed), releasing
/// its device reference; returns how many.
std::size_t forget_in(const unsigned char* begin, const unsigned char* end);

}  // namespace ndksim::kernel::work_item
