// SPDX-License-Identifier: MIT
#include "kernel/irql.hpp"

#include "kernel/violation.hpp"
#include "util/irql.hpp"
#include "wdm.h"

// The per-thread IRQL itself is util/irql's: the NDK surface raises the same value around
// consumer callbacks.
static_assert(ndksim::irql::passive_level == PASSIVE_LEVEL);
static_assert(ndksim::irql::dispatch_level == DISPATCH_LEVEL);
static_assert(ndksim::irql::high_level == HIGH_LEVEL);

namespace ndksim::kernel {

std::uint8_t current_irql() noexcept {
    return irql::current();
}

void set_irql(std::uint8_t level) noexcept {
    irql::set(level);
}

void require_irql_at_most(std::string_view function, std::uint8_t max, std::string_view rule) {
    irql::require_at_most(function, max, rule);
}

void require_irql_at_least(std::string_view function, std::uint8_t min, std::string_view rule) {
    if (irql::current() < min) {
        report_violation(function, rule, irql::current());
    }
}

}  // namespace ndksim::kernel

using ndksim::kernel::current_irql;
using ndksim::kernel::report_violation;
using ndksim::kernel::set_irql;

extern "C" {

NDKSIM_API KIRQL KeGetCurrentIrql(void) {
    return current_irql();
}

NDKSIM_API VOID KeRaiseIrql(KIRQL NewIrql, PKIRQL OldIrql) {
    const KIRQL old = current_irql();
    // KeRaiseIrql: "If the new IRQL is less than the current IRQL, a bug check occurs."
    if (NewIrql < old) {
        report_violation("KeRaiseIrql", "the new IRQL must not be below the current IRQL", old);
    }
    *OldIrql = old;
    set_irql(NewIrql);
}

NDKSIM_API VOID KeLowerIrql(KIRQL NewIrql) {
    const KIRQL old = current_irql();
    // KeLowerIrql: "It is a fatal error to call KeLowerIrql using an input NewIrql that was not
    // returned by the immediately preceding call to KeRaiseIrql"; lowering upwards is always one.
    if (NewIrql > old) {
        report_violation("KeLowerIrql", "the new IRQL must not be above the current IRQL", old);
    }
    set_irql(NewIrql);
}

NDKSIM_API KIRQL KeRaiseIrqlToDpcLevel(void) {
    const KIRQL old = current_irql();
    if (old > DISPATCH_LEVEL) {
        report_violation("KeRaiseIrqlToDpcLevel", "callers must be at IRQL <= DISPATCH_LEVEL", old);
    }
    set_irql(DISPATCH_LEVEL);
    return old;
}

}  // extern "C"
