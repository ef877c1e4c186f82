// SPDX-License-Identifier: MIT
#pragma once
// Simulated host memory: 4 KiB page frames numbered by PFNs, and the host page table mapping the
// consumer's virtual pages (real process addresses) to frames. Pinning a buffer (what
// MmProbeAndLockPages / MmBuildMdlForNonPagedPool do) gives each of its pages a frame with a
// pin count; a frame maps back to the real host page, which is how translated accesses reach
// the consumer's bytes. PFNs come from a counter starting at config::first_pfn, so they never
// equal the virtual page numbers they stand for.
//
// One instance models the host machine: adapters in one process are NICs on one host and share
// it (instance()). Tests may build private instances.
//
// Concurrency: pin, pin_frames and unpin serialize on mutex_ (consumer threads, registration
// paths). frame_address is lock-free: the frame directory and frame chunks are never freed while
// the object lives, chunk pointers are published with release stores, and a frame's host page is
// published with a release store before its PFN is handed out. A reader holds a PFN only while
// something pins the frame (an MDL or an IOMMU mapping), so the frame cannot be recycled under
// it.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

#include "util/status.hpp"

namespace ndksim::mem {

class host_memory {
  public:
    struct config {
        std::uint64_t first_pfn = 0x100000;   ///< PFN of the first frame (physical 4 GiB; >= 1)
        std::uint64_t max_frames = 1u << 22;  ///< frames that may be pinned at once (16 GiB)
    };

    /// The process-wide host shared by every adapter. Created on first use, never destroyed.
    static host_memory& instance();

    /// A host with its own frame pool.
    explicit host_memory(const config& cfg);

    /// A host with the default frame pool.
    host_memory();

    /// Releases the frame tables. Pins still held are dropped with them.
    ~host_memory();

    host_memory(const host_memory&) = delete;
    host_memory& operator=(const host_memory&) = delete;

    /// Pins every page spanned by [address, address + length) and writes one PFN per page, in
    /// address order, to pfns_out. A page already pinned keeps its frame and gains a pin.
    /// Returns success; invalid_parameter for a null address, a wrapping range or a pfns_out
    /// shorter than span_pages(address, length); insufficient_resources when the frame pool is
    /// exhausted (nothing stays pinned then). length 0 pins nothing.
    [[nodiscard]] status pin(const void* address, std::uint64_t length,
                             std::span<std::uint64_t> pfns_out);

    /// Adds one pin to each listed frame (an IOMMU mapping holding its frames). All or nothing:
    /// invalid_parameter when any PFN is not a pinned frame.
    [[nodiscard]] status pin_frames(std::span<const std::uint64_t> pfns) noexcept;

    /// Drops one pin per listed PFN. A frame whose last pin goes leaves the host page table and
    /// its PFN returns to the pool (reused oldest-first). PFNs that are not pinned frames are
    /// ignored and counted (stray_unpins()).
    void unpin(std::span<const std::uint64_t> pfns) noexcept;

    /// Start of the real host page behind `pfn`, or nullptr when `pfn` is not a pinned frame.
    /// Lock-free; the hot path of every translation.
    std::byte* frame_address(std::uint64_t pfn) const noexcept;

    /// The PFN the host page table holds for the page of `address`, or 0 when it is not pinned.
    std::uint64_t pfn_of(const void* address) const;

    /// Pins held on `pfn` (0 when it is not a pinned frame).
    std::uint32_t pin_count(std::uint64_t pfn) const;

    /// Frames currently pinned.
    std::uint64_t pinned_frames() const;

    /// Unpins of PFNs that were not pinned frames (a consumer unlocking twice, or a forged PFN).
    std::uint64_t stray_unpins() const;

    /// The PFN numbering base of this host.
    std::uint64_t first_pfn() const noexcept { return cfg_.first_pfn; }

  private:
    static constexpr std::uint32_t chunk_shift = 12;
    static constexpr std::uint64_t chunk_frames = std::uint64_t{1} << chunk_shift;

    static constexpr std::uint64_t no_pfn = 0;

    struct frame {
        std::atomic<std::uintptr_t> page{0};  // host page start; 0 = free
        std::uint32_t pins = 0;
        std::uint64_t next_free = no_pfn;  // FIFO of released PFNs, linked through the frames
    };
    struct chunk {
        frame frames[chunk_frames];
    };

    frame* slot_locked(std::uint64_t pfn) const noexcept;
    frame* find_locked(std::uint64_t pfn) const noexcept;
    status allocate_locked(std::uint64_t vpn, std::uint64_t& pfn);
    void unpin_locked(std::uint64_t pfn) noexcept;

    config cfg_;
    mutable std::mutex mutex_;
    std::unique_ptr<std::atomic<chunk*>[]> directory_;
    std::size_t directory_size_ = 0;
    std::vector<std::unique_ptr<chunk>> chunks_;
    std::unordered_map<std::uint64_t, std::uint64_t> page_table_;  // vpn -> pfn
    std::uint64_t free_head_ = no_pfn;
    std::uint64_t free_tail_ = no_pfn;
    std::uint64_t next_pfn_ = 0;
    std::uint64_t pinned_ = 0;
    std::uint64_t stray_unpins_ = 0;
};

}  // namespace ndksim::mem
