#include "kernel/violation.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "util/log.hpp"
#include "wdm.h"

namespace ndksim::kernel {
namespace {

std::atomic<std::uint64_t> g_logged{0};

bool log_mode() {
    const char* mode = std::getenv("NDKSIM_IRQL_VIOLATIONS");
    return mode != nullptr && std::string_view(mode) == "log";
}

}  // namespace

std::string irql_name(std::uint8_t irql) {
    switch (irql) {
        case PASSIVE_LEVEL:
            return "PASSIVE_LEVEL";
        case APC_LEVEL:
            return "APC_LEVEL";
        case DISPATCH_LEVEL:
            return "DISPATCH_LEVEL";
        case HIGH_LEVEL:
            return "HIGH_LEVEL";
        default:
            return fmt::format("IRQL {}", irql);
    }
}

void report_violation(std::string_view function, std::string_view rule, std::uint8_t irql) {
    const std::string report =
        fmt::format("kernel rule violation in {} at {}: {}", function, irql_name(irql), rule);
    if (log_mode()) {
        g_logged.fetch_add(1, std::memory_order_relaxed);
        NDKSIM_ERROR("{}", report);
        return;
    }
    // Written directly so the report survives whatever state the logger is in, as a bug check
    // screen does.
    std::fprintf(stderr, "ndksim: %s (set NDKSIM_IRQL_VIOLATIONS=log to continue instead)\n",
                 report.c_str());
    std::fflush(stderr);
    std::abort();
}

std::uint64_t violation_count() noexcept {
    return g_logged.load(std::memory_order_relaxed);
}

}  // namespace ndksim::kernel

extern "C" NDKSIM_API ULONG64 ndksim_kernel_irql_violations(void) {
    return ndksim::kernel::violation_count();
}
