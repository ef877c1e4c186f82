// SPDX-License-Identifier: MIT
#pragma once
// Page geometry of the simulated host and the overflow-safe range predicates that every bounds
// check in this module uses. PAGE_SIZE = 4096 and PAGE_SHIFT = 12 on every Windows platform
// (REFERENCE.md 8.1).

#include <cstdint>
#include <limits>

namespace ndksim::mem {

inline constexpr std::uint32_t page_shift = 12;
inline constexpr std::uint64_t page_size = std::uint64_t{1} << page_shift;
inline constexpr std::uint64_t page_mask = page_size - 1;

/// PAGE_ALIGN: `address` rounded down to the start of its page.
constexpr std::uint64_t page_align(std::uint64_t address) noexcept {
    return address & ~page_mask;
}

/// BYTE_OFFSET: offset of `address` inside its page [bytes, 0..4095].
constexpr std::uint32_t byte_offset(std::uint64_t address) noexcept {
    return static_cast<std::uint32_t>(address & page_mask);
}

/// Page number of `address` (address >> PAGE_SHIFT).
constexpr std::uint64_t page_number(std::uint64_t address) noexcept {
    return address >> page_shift;
}

/// ADDRESS_AND_SIZE_TO_SPAN_PAGES: pages touched by `length` bytes starting at `address`.
/// Returns 0 for length 0 (the Windows macro returns 1 for an unaligned empty range; nothing in
/// this module maps an empty range). Never wraps, even for length close to 2^64.
constexpr std::uint64_t span_pages(std::uint64_t address, std::uint64_t length) noexcept {
    if (length == 0) {
        return 0;
    }
    const std::uint64_t last = length - 1;
    return (last >> page_shift) + ((byte_offset(address) + (last & page_mask)) >> page_shift) + 1;
}

/// True when `address + length` does not exceed 2^64 (the range does not wrap).
constexpr bool range_fits(std::uint64_t address, std::uint64_t length) noexcept {
    return length <= std::numeric_limits<std::uint64_t>::max() - address;
}

/// True when [address, address + length) lies inside [base, base + size). Never computes an
/// end address, so it is correct for every input including ranges that would wrap. An empty
/// range is inside when address lies in [base, base + size].
constexpr bool range_inside(std::uint64_t base, std::uint64_t size, std::uint64_t address,
                            std::uint64_t length) noexcept {
    return address >= base && length <= size && address - base <= size - length;
}

}  // namespace ndksim::mem
