// SPDX-License-Identifier: MIT
// PAGED_CODE(): pageable code must not run above APC_LEVEL, where a page fault cannot be served.

#include "kernel/irql.hpp"
#include "wdm.h"

extern "C" NDKSIM_API VOID ndksim_kernel_paged_code(const char* Function) {
    ndksim::kernel::require_irql_at_most(Function, APC_LEVEL,
                                         "PAGED_CODE: pageable code must run at IRQL <= APC_LEVEL");
}
