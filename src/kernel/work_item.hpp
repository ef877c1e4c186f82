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

}  // namespace ndksim::kernel::work_item
