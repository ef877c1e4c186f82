// SPDX-License-Identifier: MIT
#pragma once
// Reports of broken kernel rules (IRQL rules, lock ownership). Windows stops with a bug check;
// the simulator aborts with the report by default, or, with NDKSIM_IRQL_VIOLATIONS=log, logs it
// at error level, counts it and lets the call go on, so tests can assert that a rule fired.

#include <cstdint>
#include <string>
#include <string_view>

namespace ndksim::kernel {

/// Reports that `function` broke `rule` while the calling thread was at `irql`. Aborts unless
/// the environment variable NDKSIM_IRQL_VIOLATIONS is "log" (read at each report, so a test can
/// switch modes).
void report_violation(std::string_view function, std::string_view rule, std::uint8_t irql);

/// Violations reported in log mode since the process started.
std::uint64_t violation_count() noexcept;

/// The WDK name of an IRQL value ("DISPATCH_LEVEL"), or "IRQL n" for the unnamed ones.
std::string irql_name(std::uint8_t irql);

}  // namespace ndksim::kernel
