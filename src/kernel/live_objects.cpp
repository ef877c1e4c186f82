// SPDX-License-Identifier: MIT
// check_freed_memory (live_objects.hpp): asks each engine to give up the objects it holds in
// the freed range and reports what it found.

#include "kernel/live_objects.hpp"

#include <fmt/format.h>

#include "kernel/dpc.hpp"
#include "kernel/irql.hpp"
#include "kernel/timer.hpp"
#include "kernel/violation.hpp"
#include "kernel/work_item.hpp"
#include "wdm.h"

namespace ndksim::kernel {

void check_freed_memory(std::string_view function, const void* block, std::size_t size) {
    const auto* begin = static_cast<const unsigned char*>(block);
    const auto* end = begin + size;
    const std::size_t dpcs = dpc::forget_in(begin, end);
    const std::size_t timers = timer::forget_in(begin, end);
    const std::size_t items = work_item::forget_in(begin, end);
    const std::size_t resources = forget_resources_in(begin, end);
    if (dpcs + timers + items + resources == 0) {
        return;
    }
    // TIMER_OR_DPC_INVALID on Windows (for timers and DPCs); the others corrupt the kernel's
    // lists the same way.
    report_violation(function,
                     fmt::format("the freed memory holds {} queued DPC(s), {} set timer(s), {} "
                                 "queued work item(s) and {} ERESOURCE(s) not deleted; they were "
                                 "taken out of the simulator's queues",
                                 dpcs, timers, items, resources),
                     current_irql());
}

}  // namespace ndksim::kernel
