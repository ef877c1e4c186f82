// SPDX-License-Identifier: MIT
#include "mem/iommu.hpp"

#include <algorithm>
#include <atomic>
#include <new>

#include "mem/host_memory.hpp"
#include "mem/page.hpp"

namespace ndksim::mem {
namespace {

constexpr std::uint32_t slot_bits = 24;
constexpr std::uint32_t generation_bits = 12;
constexpr std::uint32_t generation_shift = page_shift + slot_bits;
constexpr std::uint32_t unit_shift = 48;
constexpr std::uint32_t tag_shift = 56;
constexpr std::uint64_t slot_mask = (std::uint64_t{1} << slot_bits) - 1;
constexpr std::uint64_t generation_mask = (std::uint64_t{1} << generation_bits) - 1;
static_assert(generation_shift + generation_bits == unit_shift);

std::uint8_t next_unit_tag() noexcept {
    static std::atomic<std::uint32_t> counter{0};
    return static_cast<std::uint8_t>(counter.fetch_add(1, std::memory_order_relaxed) + 1);
}

}  // namespace

iommu::iommu(host_memory& host, std::uint32_t max_pages)
    : host_(host),
      max_pages_(std::min<std::uint32_t>(max_pages, static_cast<std::uint32_t>(slot_mask + 1))),
      unit_tag_(next_unit_tag()) {}

iommu::~iommu() {
    for (const slot& s : slots_) {
        if (s.mapped) {
            host_.unpin(std::span(&s.map.pfn, 1));
        }
    }
}

std::uint64_t iommu::encode(std::uint32_t index) const noexcept {
    return (address_tag << tag_shift) | (std::uint64_t{unit_tag_} << unit_shift) |
           ((slots_[index].generation & generation_mask) << generation_shift) |
           (std::uint64_t{index} << page_shift);
}

status iommu::map(std::span<const std::uint64_t> pfns, std::uint32_t fbo, std::uint64_t length,
                  mapping_use use, std::span<std::uint64_t> logical_out) {
    const std::size_t n = pfns.size();
    if (n == 0 || logical_out.size() < n || span_pages(fbo, length) != n) {
        return status::invalid_parameter;
    }
    if (n > free_pages()) {
        return status::insufficient_resources;
    }
    // Reserve the slots first (may allocate), then pin (all or nothing), then fill (cannot fail).
    // The table grows geometrically: reserving exactly what one mapping needs would copy the
    // whole table on every map.
    const std::size_t fresh_needed = n > free_count_ ? n - free_count_ : 0;
    try {
        if (slots_.size() + fresh_needed > slots_.capacity()) {
            slots_.reserve(std::max(slots_.size() + fresh_needed, 2 * slots_.capacity()));
        }
    } catch (const std::bad_alloc&) {
        return status::insufficient_resources;
    }
    if (const status st = host_.pin_frames(pfns); st != status::success) {
        return st;
    }
    const std::uint64_t end = std::uint64_t{fbo} + length;  // byte end in the page-list space
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t index = 0;
        if (free_count_ != 0) {
            index = free_head_;
            free_head_ = slots_[index].next_free;
            if (--free_count_ == 0) {
                free_tail_ = no_slot;
            }
        } else {
            index = static_cast<std::uint32_t>(slots_.size());
            slots_.emplace_back();
        }
        slot& s = slots_[index];
        const std::uint64_t page_start = std::uint64_t{i} << page_shift;
        s.map.pfn = pfns[i];
        s.map.lo = static_cast<std::uint16_t>(i == 0 ? fbo : 0);
        s.map.hi = static_cast<std::uint16_t>(std::min(end - page_start, page_size));
        s.map.use = use;
        s.mapped = true;
        logical_out[i] = encode(index);
    }
    mapped_ += static_cast<std::uint32_t>(n);
    return status::success;
}

void iommu::unmap(std::span<const std::uint64_t> logical) noexcept {
    for (const std::uint64_t address : logical) {
        if (translate(address) == nullptr) {
            continue;
        }
        const auto index = static_cast<std::uint32_t>((address >> page_shift) & slot_mask);
        slot& s = slots_[index];
        host_.unpin(std::span(&s.map.pfn, 1));
        s.mapped = false;
        s.map = {};
        // A new generation makes every logical address handed out for this slot stale.
        s.generation = static_cast<std::uint16_t>((s.generation + 1) & generation_mask);
        --mapped_;
        // Oldest-first reuse keeps a stale address unmapped for as long as possible.
        s.next_free = no_slot;
        if (free_count_++ == 0) {
            free_head_ = index;
        } else {
            slots_[free_tail_].next_free = index;
        }
        free_tail_ = index;
    }
}

status iommu::map_frames(std::span<const std::uint64_t> pfns) noexcept {
    if (pfns.size() > free_pages()) {
        return status::insufficient_resources;
    }
    if (const status st = host_.pin_frames(pfns); st != status::success) {
        return st;
    }
    mapped_ += static_cast<std::uint32_t>(pfns.size());
    return status::success;
}

void iommu::unmap_frames(std::span<const std::uint64_t> pfns) noexcept {
    host_.unpin(pfns);
    mapped_ -= static_cast<std::uint32_t>(pfns.size());
}

const iommu::page_mapping* iommu::translate(std::uint64_t logical) const noexcept {
    if ((logical >> tag_shift) != address_tag || ((logical >> unit_shift) & 0xFF) != unit_tag_) {
        return nullptr;
    }
    const std::uint64_t index = (logical >> page_shift) & slot_mask;
    if (index >= slots_.size()) {
        return nullptr;
    }
    const slot& s = slots_[index];
    if (!s.mapped || s.generation != ((logical >> generation_shift) & generation_mask)) {
        return nullptr;
    }
    return &s.map;
}

bool iommu::is_lam_page(std::uint64_t logical) const noexcept {
    if (byte_offset(logical) != 0) {
        return false;
    }
    const page_mapping* m = translate(logical);
    return m != nullptr && m->use == mapping_use::lam;
}

}  // namespace ndksim::mem
