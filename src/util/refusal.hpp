// SPDX-License-Identifier: MIT
#pragma once
// Why a consumer call was refused, in every build type.
//
// A check deep in the library (the connection manager, the post path, the memory unit) names the
// rule it enforces with because() just before it returns its failure status; the layer that
// answers the consumer's call then records the refusal on the adapter (refusal_log) with the
// call's name and status. Both run on the consumer's thread, inside the refused call, so the
// reason travels in a thread-local slot and nothing is allocated or locked on a path that
// succeeds.

#include <string_view>

#include "util/verifier_rules.hpp"

namespace ndksim::refusal {

/// Names the rule behind the failure the calling check is about to return (a static string,
/// e.g. "rule 11: nSge above the QP's MaxInitiatorRequestSge"). A later because() on the same
/// thread before the refusal is recorded replaces it: the innermost check that decided wins.
void because(const char* why) noexcept;

/// The same, for a refusal that is also a verifier rule the consumer broke: the adapter's
/// verifier reports `r` when the refusal is recorded (util/verifier.hpp).
void because(verifier::rule r, const char* why) noexcept;

/// The verifier rule given with the reason on this thread since the last take_rule(), and
/// clears it; verifier::rule::none when the reason named none.
verifier::rule take_rule() noexcept;

/// Returns the reason given on this thread since the last take(), and clears it; nullptr when
/// none was given.
const char* take() noexcept;

/// The text of the last refusal recorded on this thread ("" when none; NUL-terminated): what a
/// test prints beside an unexpected status.
std::string_view last_on_this_thread() noexcept;

/// Stores `text` as this thread's last refusal (truncated to the slot's size).
void set_last_on_this_thread(std::string_view text) noexcept;

}  // namespace ndksim::refusal
