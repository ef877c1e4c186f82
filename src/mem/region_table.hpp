// SPDX-License-Identifier: MIT
#pragma once
// The token table: one slot per region, window and privileged token of a translation unit,
// indexed by the token's index field (token.hpp). A slot carries two key bytes: `key`, which a
// token must carry to match (the full-token check of every lookup), and `issued_key`, the key of
// the token the getters hand out. They differ only between the post of a fast-register or bind
// work request (which issues the token it will install, so the consumer can read it at once)
// and that request's execution.
//
// Not synchronized: translation_unit owns the access gate and the control lock around it. The
// one exception is prefetch(), a hint any thread may give through the table's published view.

#include <atomic>
#include <cstdint>
#include <vector>

#include "mem/region.hpp"
#include "mem/token.hpp"
#include "mem/window.hpp"
#include "util/huge_page_allocator.hpp"

namespace ndksim::mem {

enum class slot_kind : std::uint8_t { free, region, window, privileged };

struct slot {
    slot_kind kind = slot_kind::free;
    std::uint8_t key = 0;
    std::uint8_t issued_key = 0;
    pd_id pd = pd_id::none;  ///< owning PD of a privileged slot
    region reg;              ///< when kind == region
    window win;              ///< when kind == window
    std::uint32_t next_free = 0;
};

class region_table {
  public:
    /// A table of at most `capacity` live slots (clamped to token_index_limit - 1).
    explicit region_table(std::uint32_t capacity);

    /// Takes a free slot for an object of `kind` and advances its key (so no token of the
    /// slot's previous life matches). Returns the index, or 0 when the table is full or memory
    /// runs out. Free slots are reused oldest-first.
    [[nodiscard]] std::uint32_t allocate(slot_kind kind) noexcept;

    /// Returns slot `index` to the free list and clears its payload. Keys are kept, so the next
    /// allocation of the slot continues the key sequence.
    void release(std::uint32_t index) noexcept;

    /// A hint that slot `index` is about to be looked up: starts loading it into the cache, so
    /// that the miss of a table too large to stay cached (a million regions, read at random)
    /// overlaps other work. Any thread, no gate: it reads only the table's published view, and
    /// a view that a concurrent growth made stale names memory a prefetch may touch harmlessly
    /// (a prefetch never faults and changes nothing).
    void prefetch(std::uint32_t index) const noexcept {
        const slot* base = view_.load(std::memory_order_relaxed);
        if (index < view_extent_.load(std::memory_order_relaxed)) {
            __builtin_prefetch(base + index);
        }
    }

    /// The live slot at `index`, or nullptr when out of range or free.
    slot* find(std::uint32_t index) noexcept;
    const slot* find(std::uint32_t index) const noexcept;

    /// The live slot at `index` when it has kind `kind`, otherwise nullptr.
    slot* find(std::uint32_t index, slot_kind kind) noexcept;
    const slot* find(std::uint32_t index, slot_kind kind) const noexcept;

    /// The token a lookup must present for slot `index` (active key).
    std::uint32_t active_token(std::uint32_t index) const noexcept;

    /// The token the getters hand out for slot `index` (issued key).
    std::uint32_t issued_token(std::uint32_t index) const noexcept;

    /// Live slots.
    std::uint32_t live() const noexcept { return live_; }

    /// One past the highest index ever allocated (indices below it may be free).
    std::uint32_t extent() const noexcept { return static_cast<std::uint32_t>(slots_.size()); }

    /// Host memory of the table [bytes].
    std::uint64_t bytes() const noexcept { return slots_.capacity() * sizeof(slot); }

    /// Maximum live slots.
    std::uint32_t capacity() const noexcept { return capacity_; }

  private:
    std::uint32_t capacity_;
    // slots_[0] is reserved: index 0 never names an object. Read at random by every lookup,
    // so huge pages keep a large table within the TLB's reach (util/huge_page_allocator.hpp).
    std::vector<slot, util::huge_page_allocator<slot>> slots_;
    // slots_' storage and size as of its last growth, for prefetch() from any thread.
    std::atomic<const slot*> view_{nullptr};
    std::atomic<std::uint32_t> view_extent_{0};
    std::uint32_t free_head_ = 0;
    std::uint32_t free_tail_ = 0;
    std::uint32_t live_ = 0;
};

}  // namespace ndksim::mem
