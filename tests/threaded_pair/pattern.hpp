// SPDX-License-Identifier: MIT
#pragma once
// The byte pattern the threaded pairs' tests send and compare.

#include <cstddef>

namespace ndksim::threaded {

/// Fills `n` bytes at `p` with a pattern that depends on `seed` and on each byte's offset.
inline void fill(std::byte* p, std::size_t n, unsigned seed) {
    for (std::size_t i = 0; i < n; ++i) {
        p[i] = static_cast<std::byte>((i * 131 + seed) & 0xFF);
    }
}

}  // namespace ndksim::threaded
