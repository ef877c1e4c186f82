// SPDX-License-Identifier: MIT
#pragma once
// The NDK verifier: it reports a consumer that breaks an NDKPI rule at the call that broke it,
// with the rule (verifier_rules.hpp), the object, the call and the consumer's call site.
//
// One switch per simulated adapter: ndksim_adapter_config::verifier, or, when the config leaves
// it at its default, the environment variable NDKSIM_VERIFIER=off|report|break:
//  - off: nothing is checked. Each check site costs one predictable branch on checker::on(),
//    a byte of the device read once per NDK call; the checks that ride on refusals already
//    made (util/refusal.hpp) cost nothing at all on a call that succeeds.
//  - report: the report is logged at warn level, counted (on the adapter and process-wide) and
//    handed to the sink a test registers (ndksim_verifier_set_callback); the call goes on as
//    it would without the verifier.
//  - break: the report is written to stderr and the process aborts, as Driver Verifier stops
//    Windows: the test kit's default, so a consumer's test fails at the offending call.
// Rules that depend on the calling thread rather than an object (an NDK call above its IRQL,
// a blocking wait inside a callback) use the strongest mode of the adapters alive.

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

#include "util/status.hpp"
#include "util/verifier_rules.hpp"

namespace ndksim::verifier {

/// The verifier's switch; values are those of ndksim_verifier_mode minus one (DEFAULT is 0).
enum class mode : std::uint8_t { off = 0, report = 1, abort = 2 };

/// One report as the sink receives it; every view is valid only during the sink's call.
struct report {
    const rule_info* rule;
    std::string_view object;     ///< identity of the object ("nic1/h1/qp#3"), or ""
    std::string_view call;       ///< the NDK function or callback ("NdkWrite")
    status result;               ///< what the call returned; status::success: it went on
    std::string_view detail;     ///< what exactly was wrong
    std::string_view backtrace;  ///< the consumer's call site, one frame per line
    std::string_view text;       ///< the whole report as logged
};

/// Receives each report in report mode (from the thread that broke the rule).
using sink_fn = void (*)(const report& r, void* context);

/// The verifier of one simulated adapter.
class checker {
  public:
    checker() noexcept;
    ~checker();
    checker(const checker&) = delete;
    checker& operator=(const checker&) = delete;

    /// True when checks run: the one branch every check site takes (a relaxed load is a plain
    /// load on the hosts ndksim runs on).
    bool on() const noexcept { return mode_.load(std::memory_order_relaxed) != mode::off; }

    mode current() const noexcept { return mode_.load(std::memory_order_relaxed); }

    /// Sets the mode: when the adapter is created, and when a test marks a deliberate
    /// violation (the change applies to calls that start after it).
    void set_mode(mode m) noexcept;

    /// Reports that the consumer broke `r` in `call` on `object` (see the file comment for what
    /// each mode does). A rule disabled with set_enabled() is not reported. Call only when on().
    void raise(rule r, std::string_view object, std::string_view call, status result,
               std::string_view detail) const;

    /// Reports raised on this adapter so far.
    std::uint64_t count() const noexcept { return count_.load(std::memory_order_relaxed); }

    /// Reports of rule `r` raised on this adapter so far.
    std::uint64_t count(rule r) const noexcept {
        return by_rule_[static_cast<std::size_t>(r)].load(std::memory_order_relaxed);
    }

  private:
    std::atomic<mode> mode_{mode::off};
    mutable std::atomic<std::uint64_t> count_{0};
    mutable std::array<std::atomic<std::uint64_t>, k_rule_count> by_rule_{};
};

/// Marks a section the consumer must serialize (a queue's posts, rule 8; a CQ's polls and arms,
/// rule 13): a second thread that enters while the first is inside broke the rule. The same
/// thread entering again (from a callback it runs inside the section) is not a violation.
class serial_section {
  public:
    enum class entry : std::uint8_t { owned, nested, contended };
    /// Enters: owned (leave() when done), nested (this thread is inside already) or contended
    /// (another thread is inside; this thread does not own the section).
    entry enter() noexcept;
    /// Leaves a section enter() returned true for.
    void leave() noexcept { owner_.store(nullptr, std::memory_order_release); }

  private:
    std::atomic<const void*> owner_{nullptr};
};

/// Scope of one NDK call over a serial_section: with the verifier on, enters it and reports
/// `r` when another thread is inside; with it off, one branch and nothing else.
class section_guard {
  public:
    section_guard(const checker& v, serial_section& s, rule r, const char* object,
                  const char* call) noexcept {
        if (v.on()) [[unlikely]] {
            enter(v, s, r, object, call);
        }
    }
    ~section_guard() {
        if (owned_ != nullptr) {
            owned_->leave();
        }
    }
    section_guard(const section_guard&) = delete;
    section_guard& operator=(const section_guard&) = delete;

  private:
    void enter(const checker& v, serial_section& s, rule r, const char* object,
               const char* call) noexcept;

    serial_section* owned_ = nullptr;
};

/// The mode of an adapter whose config leaves the verifier at its default: NDKSIM_VERIFIER when
/// it is set to off, report or break, otherwise off.
mode from_environment() noexcept;

/// Registers the sink of report mode (nullptr: none), process-wide.
void set_sink(sink_fn sink, void* context) noexcept;

/// Reports raised in this process so far, on every adapter and thread rule.
std::uint64_t total_count() noexcept;

/// Whether `r` is reported. Opt-in rules start disabled, the others enabled.
bool enabled(rule r) noexcept;

/// Turns the reporting of `r` on or off, process-wide.
void set_enabled(rule r, bool on) noexcept;

/// The strongest mode among the adapters alive: the mode of the thread rules.
mode thread_rules_mode() noexcept;

/// Reports a thread rule (irql_of_call, kernel_rule_in_callback) in thread_rules_mode().
/// Returns false, doing nothing, when that mode is off.
bool raise_thread_rule(rule r, std::string_view call, std::string_view detail);

/// Short name of a mode ("report").
std::string_view mode_name(mode m) noexcept;

}  // namespace ndksim::verifier
