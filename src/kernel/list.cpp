// SPDX-License-Identifier: MIT
// The report behind the inline LIST_ENTRY routines' link checks (wdm.h). Windows fails fast
// (FAST_FAIL_CORRUPT_LIST_ENTRY) when a neighbour's link does not point back; the simulator
// reports it like any other kernel rule violation.

#include <fmt/format.h>

#include "kernel/irql.hpp"
#include "kernel/violation.hpp"
#include "wdm.h"

extern "C" NDKSIM_API VOID ndksim_kernel_list_corruption(const char* Function, PLIST_ENTRY Entry) {
    ndksim::kernel::report_violation(
        Function,
        fmt::format("corrupt LIST_ENTRY links at {} (a neighbour does not point back)",
                    static_cast<const void*>(Entry)),
        ndksim::kernel::current_irql());
}
