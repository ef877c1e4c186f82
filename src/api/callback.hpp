// SPDX-License-Identifier: MIT
#pragma once
// The IRQL bridge between the NDK surface and the kernel runtime (REFERENCE.md 8.5).
//
// Every NDK provider function and every consumer callback runs at IRQL <= DISPATCH_LEVEL;
// NdkQueryAdapterInfo and the adapter open and close run at PASSIVE_LEVEL. The simulator makes
// both halves checked rules:
//  - Each consumer callback it invokes (request, create and close completions, CQ and SRQ
//    notifications, connect and disconnect events) runs inside a callback_scope: the calling
//    thread's IRQL is raised to DISPATCH_LEVEL, as a provider's DPC would run it, and when the
//    callback returns the scope checks that the IRQL is DISPATCH_LEVEL again and that the
//    callback released every spin lock it took, then restores the previous IRQL. So a consumer
//    that blocks, waits with a timeout or calls a PASSIVE_LEVEL routine from a callback is
//    reported by the kernel runtime's own checks instead of deadlocking on Windows later.
//  - Each NDK call checks the caller's IRQL against the function's rule (check_call).
// The state is util/irql's thread-local IRQL; api does not include the kernel runtime. Cost
// when nothing is wrong: a thread-local load and store per callback, a load and compare per
// call; no allocation, lock or log.

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "timing/sync_options.hpp"
#include "util/irql.hpp"

namespace ndksim::api {

/// The rule every NDK provider function has (REFERENCE.md 8.5).
inline constexpr std::string_view k_ndk_call_rule =
    "NDK provider functions must be called at IRQL <= DISPATCH_LEVEL";

/// Reports an NDK call made above its IRQL: through the verifier's irql_of_call when a verifier
/// is on, otherwise as the kernel runtime reports its own IRQL rules.
void report_call_irql(const char* function, std::string_view rule);

/// Reports a violation unless the caller of `function` is at IRQL <= `max`. The name is
/// measured only for a report: every NDK call passes through here.
inline void check_call(const char* function, std::uint8_t max, std::string_view rule) {
    if (irql::current() > max) [[unlikely]] {
        report_call_irql(function, rule);
    }
}

/// Runs one consumer callback at DISPATCH_LEVEL (see the file comment). `callback` names the
/// NDK callback type in reports ("NDK_FN_CQ_NOTIFICATION_CALLBACK").
class callback_scope {
  public:
    explicit callback_scope(const char* callback) noexcept
        : callback_(callback),
          saved_(irql::current()),
          level_(std::max(saved_, irql::dispatch_level)),
          locks_(irql::spin_locks_held()) {
        irql::set(level_);
        ++irql::t_state.ndk_callbacks;
    }
    ~callback_scope() {
        if (irql::current() != level_ || irql::spin_locks_held() != locks_) [[unlikely]] {
            report_bad_return();
        }
        --irql::t_state.ndk_callbacks;
        irql::set(saved_);
        // Synchronized time: what the callback did is shown to the consumer, whose threads it
        // may have woken; time moves on once they have reacted.
        timing::note_callback_returned();
    }
    callback_scope(const callback_scope&) = delete;
    callback_scope& operator=(const callback_scope&) = delete;

  private:
    void report_bad_return() const;

    const char* callback_;
    std::uint8_t saved_;
    std::uint8_t level_;
    std::uint32_t locks_;
};

/// Calls `call` inside a callback_scope named `callback`.
template <class F>
void run_callback(const char* callback, F&& call) {
    const callback_scope scope(callback);
    static_cast<F&&>(call)();
}

}  // namespace ndksim::api
