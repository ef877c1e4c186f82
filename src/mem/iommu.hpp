// SPDX-License-Identifier: MIT
#pragma once
// The adapter's IOMMU: maps adapter logical page addresses (NDK_LOGICAL_ADDRESS) to host frames.
// Each mapped page is a slot; its logical address encodes the slot, the slot's generation and
// this unit's tag, so a logical address that was never mapped here, or whose mapping was torn
// down (the generation moved on), never translates.
//
// Mappings made for a LAM hand their addresses to the consumer; mappings made for a normal
// registration stay inside the region's page list. Only the former are reachable through the
// privileged token or a FastRegister page array.
//
// Logical address layout (64 bits):
//   [63:56] 0x4C ('L')   [55:48] unit tag   [47:36] generation   [35:12] slot   [11:0] offset
// Neither a user virtual address (top byte 0) nor a physical address (PFN << 12 < 2^52) can
// take this form, so a consumer or engine that confuses them fails to translate.
//
// A mapping pins its frames in host_memory (counted: the frame cannot be recycled while an
// adapter could still reach it) and records which bytes of each page the mapping describes:
// the first page starts at the FBO and the last ends with the mapped length, so translated
// accesses never reach bytes outside the buffer the MDL described.
//
// Not synchronized: translation_unit calls map/unmap inside its access gate entered
// exclusively and translate from its data path (inside the gate); its queries read the counts
// under its control lock shared, beside which no map or unmap runs.

#include <cstdint>
#include <span>
#include <vector>

#include "util/status.hpp"

namespace ndksim::mem {

class host_memory;

/// Who a mapping's logical addresses are handed to.
enum class mapping_use : std::uint8_t {
    lam,     ///< NdkBuildLam: the consumer gets the addresses (privileged SGEs, FastRegister)
    region,  ///< NdkRegisterMr: internal to a region's page list, never handed out
};

class iommu {
  public:
    /// The translation of one mapped logical page.
    struct page_mapping {
        std::uint64_t pfn = 0;  ///< host frame
        std::uint16_t lo = 0;   ///< first byte of the page the mapping covers
        std::uint16_t hi = 0;   ///< one past the last covered byte (1..4096)
        mapping_use use = mapping_use::lam;
    };

    /// An IOMMU over `host` holding at most `max_pages` mappings (at most 2^24).
    iommu(host_memory& host, std::uint32_t max_pages);

    /// Unpins the frames of every mapping still held.
    ~iommu();

    iommu(const iommu&) = delete;
    iommu& operator=(const iommu&) = delete;

    /// Maps `pfns.size()` pages describing a byte range that starts `fbo` bytes into the first
    /// page and is `length` bytes long (precondition: pfns.size() == span_pages(fbo, length)).
    /// Writes each page's logical page address to logical_out and records `use`. Pins every
    /// frame. All or nothing: insufficient_resources when fewer than pfns.size() slots are free,
    /// invalid_parameter when a PFN is not a pinned frame of the host.
    [[nodiscard]] status map(std::span<const std::uint64_t> pfns, std::uint32_t fbo,
                             std::uint64_t length, mapping_use use,
                             std::span<std::uint64_t> logical_out);

    /// Tears down the mappings of the listed logical page addresses and unpins their frames.
    /// Addresses that are not currently mapped are ignored.
    void unmap(std::span<const std::uint64_t> logical) noexcept;

    /// Maps the frames of a normal registration, whose page list holds the frames themselves
    /// (no slot, no logical address: nothing outside the region can name them): pins every
    /// frame and counts the pages against the capacity. All or nothing: insufficient_resources
    /// when fewer than pfns.size() pages are free, invalid_parameter when a PFN is not a pinned
    /// frame of the host.
    [[nodiscard]] status map_frames(std::span<const std::uint64_t> pfns) noexcept;

    /// Undoes map_frames: unpins the frames and returns their pages to the capacity.
    void unmap_frames(std::span<const std::uint64_t> pfns) noexcept;

    /// The mapping of the page containing `logical`, or nullptr when that page is not mapped by
    /// this IOMMU (wrong tag, wrong unit, stale generation, free slot).
    const page_mapping* translate(std::uint64_t logical) const noexcept;

    /// True when `logical` is a page-aligned address of a page mapped here by a LAM (the only
    /// logical addresses a consumer can hold).
    bool is_lam_page(std::uint64_t logical) const noexcept;

    /// Pages currently mapped (slots and map_frames pages).
    std::uint32_t mapped_pages() const noexcept { return mapped_; }

    /// Host memory of the slot table [bytes].
    std::uint64_t bytes() const noexcept { return slots_.capacity() * sizeof(slot); }

    /// Slots that can still be mapped.
    std::uint32_t free_pages() const noexcept { return max_pages_ - mapped_; }

    /// This unit's tag in bits [55:48] of its logical addresses.
    std::uint8_t unit_tag() const noexcept { return unit_tag_; }

    static constexpr std::uint64_t address_tag = 0x4C;

  private:
    static constexpr std::uint32_t no_slot = 0xFFFFFFFF;

    struct slot {
        page_mapping map;
        std::uint16_t generation = 0;
        bool mapped = false;
        std::uint32_t next_free = no_slot;  // FIFO of unmapped slots, linked through the slots
    };

    std::uint64_t encode(std::uint32_t index) const noexcept;

    host_memory& host_;
    std::uint32_t max_pages_;
    std::uint8_t unit_tag_;
    std::vector<slot> slots_;
    std::uint32_t free_head_ = no_slot;
    std::uint32_t free_tail_ = no_slot;
    std::uint32_t free_count_ = 0;  // slots on the FIFO
    std::uint32_t mapped_ = 0;      // slots mapped plus map_frames pages
};

}  // namespace ndksim::mem
