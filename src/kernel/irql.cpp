#include "kernel/irql.hpp"

#include "kernel/violation.hpp"
#include "wdm.h"

namespace ndksim::kernel {
namespace {

thread_local std::uint8_t t_irql = PASSIVE_LEVEL;

}  // namespace

std::uint8_t current_irql() noexcept {
    return t_irql;
}

void set_irql(std::uint8_t irql) noexcept {
    t_irql = irql;
}

void require_irql_at_most(std::string_view function, std::uint8_t max, std::string_view rule) {
    if (t_irql > max) {
        report_violation(function, rule, t_irql);
    }
}

void require_irql_at_least(std::string_view function, std::uint8_t min, std::string_view rule) {
    if (t_irql < min) {
        report_violation(function, rule, t_irql);
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
