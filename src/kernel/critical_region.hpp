// SPDX-License-Identifier: MIT
#pragma once
// Critical regions: the per-thread count of KeEnterCriticalRegion calls not yet left. The
// simulator delivers no APCs; the count drives the rule checks of push locks and executive
// resources, and the checks made when a driver routine returns to the simulator.

#include <string_view>

namespace ndksim::kernel {

/// How many critical regions the calling thread is inside.
int critical_region_depth() noexcept;

/// Reports a violation by `function` unless normal kernel APCs are disabled: the caller is at
/// APC_LEVEL, or at PASSIVE_LEVEL inside a critical region. Also reports IRQL > APC_LEVEL.
void require_apcs_disabled(std::string_view function);

/// Called when a driver routine the simulator ran (`role`, e.g. "work item routine") has
/// returned: it must leave the thread at PASSIVE_LEVEL outside any critical region. Reports a
/// violation otherwise and restores both, so the simulated thread can go on.
void check_returned_at_passive(std::string_view role);

}  // namespace ndksim::kernel
