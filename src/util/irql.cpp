// SPDX-License-Identifier: MIT
#include "util/irql.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "util/log.hpp"
#include "util/verifier.hpp"

namespace ndksim::irql {

constinit thread_local thread_state t_state [[gnu::tls_model("initial-exec")]]{};

namespace {

std::atomic<std::uint64_t> g_logged{0};

bool log_mode() {
    const char* mode = std::getenv("NDKSIM_IRQL_VIOLATIONS");
    return mode != nullptr && std::string_view(mode) == "log";
}

}  // namespace

std::string level_name(std::uint8_t level) {
    switch (level) {
        case passive_level:
            return "PASSIVE_LEVEL";
        case apc_level:
            return "APC_LEVEL";
        case dispatch_level:
            return "DISPATCH_LEVEL";
        case high_level:
            return "HIGH_LEVEL";
        default:
            return fmt::format("IRQL {}", level);
    }
}

void report_violation(std::string_view function, std::string_view rule, std::uint8_t level) {
    if (t_state.ndk_callbacks != 0 &&
        verifier::raise_thread_rule(
            verifier::rule::kernel_rule_in_callback, function,
            fmt::format("inside an NDK callback, at {}: {}", level_name(level), rule))) {
        return;
    }
    const std::string report =
        fmt::format("kernel rule violation in {} at {}: {}", function, level_name(level), rule);
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

}  // namespace ndksim::irql
