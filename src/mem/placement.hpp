// SPDX-License-Identifier: MIT
#pragma once
// How the simulated NIC writes into consumer memory: the last byte once, and last.
//
// A consumer may watch the last byte of an incoming RDMA WRITE for its arrival and write that
// byte again as soon as it changes (perftest's ib_write_lat does both, on every NIC). That
// works on hardware because the NIC's DMA writes each byte once, in address order within a
// PCIe write. memcpy gives neither: glibc copies 8 to 15 bytes with two overlapping 8-byte
// stores, so a consumer thread running between the two sees its tag, writes the byte, and the
// second store puts the old value back (the consumer then waits for a write that landed, and
// the next write it sends carries stale data); larger copies may store their tail before their
// middle. Here the bytes below the last are copied first (overlapping stores stay among them),
// then, after a release fence, the last byte is stored once: a thread that sees it changed sees
// the rest of the run too.

#include <atomic>
#include <cstddef>
#include <cstring>

namespace ndksim::mem {

/// Copies `n` bytes from `src` into consumer memory at `dst`. The last byte is stored once,
/// after every other byte of the run is final: no byte of `dst` is written after it, and a
/// thread that sees it sees the others. The two may overlap: a lent frame's payload is the
/// sender's memory (wire/lent_frames.hpp), and a write whose source and target overlap places
/// it over itself (undefined on a NIC; here each packet's bytes are those its source held
/// when the packet was placed).
inline void place_bytes(std::byte* dst, const std::byte* src, std::size_t n) noexcept {
    if (n == 0) {
        return;
    }
    if (dst < src + n && src < dst + n) [[unlikely]] {
        const std::byte last = src[n - 1];
        std::memmove(dst, src, n - 1);
        std::atomic_thread_fence(std::memory_order_release);
        std::atomic_ref<std::byte>(dst[n - 1]).store(last, std::memory_order_relaxed);
        return;
    }
    std::memcpy(dst, src, n - 1);
    std::atomic_thread_fence(std::memory_order_release);
    std::atomic_ref<std::byte>(dst[n - 1]).store(src[n - 1], std::memory_order_relaxed);
}

}  // namespace ndksim::mem
