// SPDX-License-Identifier: MIT
#pragma once
// The simulated DPC queue: one FIFO (HighImportance DPCs go to its front) drained by one DPC
// thread at DISPATCH_LEVEL, as one processor's DPC queue is on Windows.

#include <cstddef>
#include <cstdint>

#include "wdm.h"

namespace ndksim::kernel::dpc {

/// Queues `dpc` with the two system arguments; false when it is already queued. Any IRQL (the
/// IRQL rules belong to the callers: KeInsertQueueDpc has none, timers queue theirs).
bool insert(KDPC& dpc, PVOID argument1, PVOID argument2);

/// DPCs queued plus the one running, if any.
std::size_t queued_or_running();

/// Waits until no DPC is queued or running, or the interrupt time reaches `deadline`; true when
/// the queue went idle.
bool wait_idle(std::int64_t deadline);

/// Removes every queued DPC that lies in [begin, end) (memory being freed); returns how many.
std::size_t forget_in(const unsigned char* begin, const unsigned char* end);

}  // namespace ndksim::kernel::dpc
