// SPDX-License-Identifier: MIT
// place_bytes, the NIC's writes into consumer memory: the bytes arrive, and nothing outside the
// run is touched, also where the source overlaps the target. Its ordering contract (each byte
// stored once, the last byte last, behind a release fence) holds by construction and matters only
// when a consumer thread runs between two stores of one copy; the two-process stress of
// bench/sync_scale.sh (16 ndksim-perf pairs of ib_write_lat on two cores) is where that was seen
// with memcpy.

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "mem/placement.hpp"

namespace ndksim::mem::test {
namespace {

TEST(Placement, EveryByteOfTheRunArrivesAndNoneAroundIt) {
    constexpr std::size_t k_guard = 64;
    for (std::size_t n = 0; n <= 600; ++n) {
        for (const std::size_t offset : {std::size_t{0}, std::size_t{1}, std::size_t{7}}) {
            std::vector<std::byte> src(n);
            for (std::size_t i = 0; i < n; ++i) {
                src[i] = static_cast<std::byte>(i * 7 + n);
            }
            std::vector<std::byte> dst(offset + n + k_guard, std::byte{0xEE});
            place_bytes(dst.data() + offset, src.data(), n);
            for (std::size_t i = 0; i < offset; ++i) {
                ASSERT_EQ(dst[i], std::byte{0xEE}) << "n " << n << " offset " << offset;
            }
            for (std::size_t i = 0; i < n; ++i) {
                ASSERT_EQ(dst[offset + i], src[i]) << "n " << n << " byte " << i;
            }
            for (std::size_t i = offset + n; i < dst.size(); ++i) {
                ASSERT_EQ(dst[i], std::byte{0xEE}) << "n " << n << " past the run at " << i;
            }
        }
    }
}

TEST(Placement, ASourceThatOverlapsItsTargetArrivesAsItWasBefore) {
    // A lent frame's payload is the sender's memory, which a write may place over itself.
    for (const std::ptrdiff_t shift : {-9, -1, 1, 5, 63}) {
        for (std::size_t n = 1; n <= 300; n += 37) {
            std::vector<std::byte> buffer(n + 2 * 64);
            for (std::size_t i = 0; i < buffer.size(); ++i) {
                buffer[i] = static_cast<std::byte>(i * 13 + 1);
            }
            const std::vector<std::byte> before = buffer;
            std::byte* src = buffer.data() + 64;
            place_bytes(src + shift, src, n);
            for (std::size_t i = 0; i < n; ++i) {
                ASSERT_EQ(buffer[static_cast<std::size_t>(64 + shift) + i], before[64 + i])
                    << "shift " << shift << " n " << n << " byte " << i;
            }
        }
    }
}

}  // namespace
}  // namespace ndksim::mem::test
