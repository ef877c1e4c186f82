// SPDX-License-Identifier: MIT
#pragma once
// What the component tests that move data share: the page size of the buffers they map and the
// byte pattern they fill them with, so a wrong offset shows as a wrong byte.

#include <cstddef>

#include <ndkpi.h>

namespace ndksim::testkit {

/// The page size the tests' buffers are aligned to and mapped in (the MDL page size).
inline constexpr ULONG k_page = 4096;

/// Fills `n` bytes at `p` with a pattern that depends on the offset and on `seed`.
inline void fill(std::byte* p, std::size_t n, unsigned seed) {
    for (std::size_t i = 0; i < n; ++i) {
        p[i] = static_cast<std::byte>((i * 131 + seed) & 0xFF);
    }
}

}  // namespace ndksim::testkit
