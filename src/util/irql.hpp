// SPDX-License-Identifier: MIT
#pragma once
// The simulated IRQL every layer shares: one value per thread, starting at PASSIVE_LEVEL, plus
// the count of spin locks the thread holds, and the report of a broken kernel rule.
//
// It lives below every module because two layers drive it: the kernel runtime (src/kernel)
// raises and lowers it for KeRaiseIrql and the spin locks and checks the Ke* rules against it,
// and the NDK surface (src/api) raises it to DISPATCH_LEVEL around every consumer callback and
// checks each NDK call against its documented IRQL (REFERENCE.md 8.5). api may not include
// kernel, so the state both see is here. Reading it costs one thread-local load.
//
// Reports: by default a violation aborts the process with the report on stderr (as a bug check
// stops Windows); with the environment variable NDKSIM_IRQL_VIOLATIONS=log it is logged at
// error level, counted and the call goes on. The variable is read at each report.

#include <cstdint>
#include <string>
#include <string_view>

namespace ndksim::irql {

/// x64 IRQL values (wdm.h has the same numbers under their WDK names).
inline constexpr std::uint8_t passive_level = 0;
inline constexpr std::uint8_t apc_level = 1;
inline constexpr std::uint8_t dispatch_level = 2;
inline constexpr std::uint8_t high_level = 15;

/// What one thread carries: its IRQL and how many spin locks it holds.
struct thread_state {
    std::uint8_t level = passive_level;
    std::uint32_t spin_locks_held = 0;
    /// NDK consumer callbacks running on the thread (api::callback_scope): a kernel rule
    /// broken inside one is the verifier's kernel_rule_in_callback.
    std::uint32_t ndk_callbacks = 0;
};

/// The calling thread's state; use the accessors below.
/// initial-exec: read on every NDK call and callback; from the shared library the default model
/// costs a __tls_get_addr call per access (the library is linked, not dlopen'ed late).
extern constinit thread_local thread_state t_state [[gnu::tls_model("initial-exec")]];

/// The calling thread's IRQL.
inline std::uint8_t current() noexcept {
    return t_state.level;
}

/// Sets the calling thread's IRQL without any check (the callers check first).
inline void set(std::uint8_t level) noexcept {
    t_state.level = level;
}

/// Spin locks the calling thread holds (kept by the kernel runtime's acquire and release).
inline std::uint32_t spin_locks_held() noexcept {
    return t_state.spin_locks_held;
}
inline void spin_lock_acquired() noexcept {
    ++t_state.spin_locks_held;
}
inline void spin_lock_released() noexcept {
    --t_state.spin_locks_held;
}

/// Reports that `function` broke `rule` while the calling thread was at `level`: aborts, or
/// in log mode logs and counts (see above).
void report_violation(std::string_view function, std::string_view rule, std::uint8_t level);

/// Reports a violation of `rule` by `function` unless the current IRQL is <= `max`.
inline void require_at_most(std::string_view function, std::uint8_t max, std::string_view rule) {
    if (current() > max) [[unlikely]] {
        report_violation(function, rule, current());
    }
}

/// Violations reported in log mode since the process started.
std::uint64_t violation_count() noexcept;

/// The WDK name of an IRQL value ("DISPATCH_LEVEL"), or "IRQL n" for the unnamed ones.
std::string level_name(std::uint8_t level);

}  // namespace ndksim::irql
