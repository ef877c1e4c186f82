// SPDX-License-Identifier: MIT
#pragma once
// Simulated time. One unit is a picosecond: fine enough for per-cycle NIC costs (a 156.25 MHz
// core clock is 6400 ps) and a uint64 still spans 213 days.

#include <cstdint>

namespace ndksim::timing {

/// A point or a span of simulated time [picoseconds].
using sim_time = std::uint64_t;

constexpr sim_time picoseconds(std::uint64_t v) noexcept {
    return v;
}
constexpr sim_time nanoseconds(std::uint64_t v) noexcept {
    return v * 1'000;
}
constexpr sim_time microseconds(std::uint64_t v) noexcept {
    return v * 1'000'000;
}
constexpr sim_time milliseconds(std::uint64_t v) noexcept {
    return v * 1'000'000'000;
}
constexpr sim_time seconds(std::uint64_t v) noexcept {
    return v * 1'000'000'000'000;
}

}  // namespace ndksim::timing
