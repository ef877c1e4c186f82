// SPDX-License-Identifier: MIT
// KeEnterCriticalRegion / KeLeaveCriticalRegion and the per-thread count behind them.

#include "kernel/critical_region.hpp"

#include <fmt/format.h>

#include "kernel/irql.hpp"
#include "kernel/violation.hpp"
#include "wdm.h"

namespace ndksim::kernel {
namespace {

thread_local int t_depth = 0;

}  // namespace

int critical_region_depth() noexcept {
    return t_depth;
}

void require_apcs_disabled(std::string_view function) {
    const std::uint8_t irql = current_irql();
    // ExAcquirePushLockExclusive, ExAcquireResourceExclusiveLite: callers run at IRQL <=
    // APC_LEVEL with normal kernel APCs disabled (KeEnterCriticalRegion, or APC_LEVEL itself).
    if (irql > APC_LEVEL) {
        report_violation(function, "callers must be at IRQL <= APC_LEVEL", irql);
    } else if (irql < APC_LEVEL && t_depth == 0) {
        report_violation(function,
                         "normal kernel APCs must be disabled (call KeEnterCriticalRegion first)",
                         irql);
    }
}

void check_returned_at_passive(std::string_view role) {
    if (current_irql() != PASSIVE_LEVEL) {
        report_violation(role, "the routine returned above PASSIVE_LEVEL", current_irql());
        set_irql(PASSIVE_LEVEL);
    }
    if (t_depth != 0) {
        report_violation(role,
                         fmt::format("the routine returned inside {} critical region(s)", t_depth),
                         current_irql());
        t_depth = 0;
    }
}

}  // namespace ndksim::kernel

using namespace ndksim::kernel;

extern "C" {

NDKSIM_API VOID KeEnterCriticalRegion(void) {
    // KeEnterCriticalRegion: "Callers ... can be running at IRQL <= APC_LEVEL."
    require_irql_at_most("KeEnterCriticalRegion", APC_LEVEL,
                         "callers must be at IRQL <= APC_LEVEL");
    ++t_depth;
}

NDKSIM_API VOID KeLeaveCriticalRegion(void) {
    require_irql_at_most("KeLeaveCriticalRegion", APC_LEVEL,
                         "callers must be at IRQL <= APC_LEVEL");
    if (t_depth == 0) {
        report_violation("KeLeaveCriticalRegion",
                         "the thread is not inside a critical region (no matching "
                         "KeEnterCriticalRegion)",
                         current_irql());
        return;
    }
    --t_depth;
}

NDKSIM_API BOOLEAN KeAreApcsDisabled(void) {
    return (t_depth > 0 || current_irql() >= APC_LEVEL) ? TRUE : FALSE;
}

}  // extern "C"
