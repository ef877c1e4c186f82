// SPDX-License-Identifier: MIT
#pragma once
// Rounding a non-negative double to the nearest integer, halves away from zero: std::llround's
// result without its call into libm. The cost model rounds every modelled duration this way,
// several times per packet, and the call was a measurable part of a small write's host time.

#include <cmath>
#include <cstdint>

namespace ndksim::timing {

/// std::llround(x), computed inline for 0 <= x < 2^63 and by std::llround otherwise (negative,
/// out of range or NaN). Exact: the fraction x - trunc(x) of a double is itself a double
/// (for x >= 1, trunc(x) is within a factor of two of x, so the subtraction is exact), so
/// comparing it with 0.5 decides the halves exactly as llround does.
inline std::int64_t round_half_away(double x) noexcept {
    if (!(x >= 0.0 && x < 9223372036854775808.0)) {
        return std::llround(x);
    }
    const auto whole = static_cast<std::int64_t>(x);
    return x - static_cast<double>(whole) >= 0.5 ? whole + 1 : whole;
}

}  // namespace ndksim::timing
