// SPDX-License-Identifier: MIT
#include "kernel/violation.hpp"

#include "util/irql.hpp"
#include "wdm.h"

// The report itself lives in util/irql because the NDK surface (src/api) reports the IRQL
// rules of NDK calls and callbacks the same way and may not include the kernel runtime.

namespace ndksim::kernel {

std::string irql_name(std::uint8_t irql) {
    return irql::level_name(irql);
}

void report_violation(std::string_view function, std::string_view rule, std::uint8_t irql) {
    irql::report_violation(function, rule, irql);
}

std::uint64_t violation_count() noexcept {
    return irql::violation_count();
}

}  // namespace ndksim::kernel

extern "C" NDKSIM_API ULONG64 ndksim_kernel_irql_violations(void) {
    return ndksim::kernel::violation_count();
}
