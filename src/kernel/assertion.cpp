// SPDX-License-Identifier: MIT
// The report behind ASSERT / NT_ASSERT / NT_VERIFY in debug builds (wdm.h). A checked Windows
// build breaks into the debugger; the simulator reports a violation, which aborts by default.

#include <fmt/format.h>

#include "kernel/irql.hpp"
#include "kernel/violation.hpp"
#include "wdm.h"

extern "C" NDKSIM_API VOID ndksim_kernel_assertion_failed(const char* Expression, const char* File,
                                                          int Line) {
    ndksim::kernel::report_violation(
        "ASSERT", fmt::format("assertion \"{}\" failed at {}:{}", Expression, File, Line),
        ndksim::kernel::current_irql());
}
