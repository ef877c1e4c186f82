// SPDX-License-Identifier: MIT
#pragma once
// The translation cache model: a set-associative, LRU-per-set tag store of
// (token, page) -> frame sitting in front of the translation tables, as the MTT/MPT cache of a
// real NIC does. It is a cost model: lookups always translate through the tables, and the cache
// only records whether that translation would have hit. Misses therefore change the cost the
// timing model charges (hits(), misses(), the per-lookup miss count), never a result.
// A hit whose stored frame differs from the table's answer would be a coherence bug of the
// model; it is counted in stale_hits() (tests assert it stays 0).
//
// Invalidation follows the events that change a translation: a token's slot being re-activated
// or invalidated drops that slot's entries (invalidate_index); an IOMMU unmap drops everything
// (flush, by bumping an epoch). Dropping a slot's entries must not cost a scan of the whole
// cache when it holds none (every registration of a fresh MR asks), so the cache counts its
// valid entries per bucket of slot indices and scans only when the slot's bucket is not empty.
//
// Concurrency: none of its own. Every call comes from inside the owning translation unit's
// access gate (util/access_gate.hpp), which admits one holder at a time and orders each holder
// after the one before, whichever thread each ran on. Counters are atomics readable from any
// thread.

#include <atomic>
#include <cstdint>
#include <vector>

namespace ndksim::mem {

/// Geometry of a translation cache.
struct cache_config {
    std::uint32_t sets = 64;  ///< sets; 0 disables (every probe misses)
    std::uint32_t ways = 8;   ///< entries per set; 0 disables
};

/// Ways per set of a cache sized by its entry count (cache_geometry).
inline constexpr std::uint32_t k_cache_ways = 8;

/// The geometry of a cache of `entries` entries (a profile's nic.mtt_cache_entries):
/// k_cache_ways ways and entries / k_cache_ways sets, so the capacity is `entries` rounded down
/// to a multiple of k_cache_ways; fewer entries than that make one fully associative set; 0
/// disables the cache.
constexpr cache_config cache_geometry(std::uint32_t entries) noexcept {
    if (entries < k_cache_ways) {
        return cache_config{entries == 0 ? 0U : 1U, entries};
    }
    return cache_config{entries / k_cache_ways, k_cache_ways};
}

/// Counter snapshot.
struct cache_counters {
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;
    std::uint64_t stale_hits = 0;
    std::uint32_t last_lookup_misses = 0;  ///< misses of the most recent lookup on the unit
};

class translation_cache {
  public:
    /// A cache with the geometry of `cfg`.
    explicit translation_cache(const cache_config& cfg);

    translation_cache(const translation_cache&) = delete;
    translation_cache& operator=(const translation_cache&) = delete;

    /// The probes of one lookup; records the lookup's miss count on destruction.
    class session {
      public:
        /// Starts the probes of one lookup on `cache`.
        explicit session(translation_cache& cache);

        /// Publishes this lookup's miss count as last_lookup_misses.
        ~session();
        session(const session&) = delete;
        session& operator=(const session&) = delete;

        /// Records an access to page `page` (a page-list index, or a logical page number for
        /// a privileged token) through `token`, whose table translation is frame `pfn`.
        /// Returns true on a hit; a miss fills the least recently used way of the set.
        bool touch(std::uint32_t token, std::uint64_t page, std::uint64_t pfn) noexcept;

        /// Misses recorded by this session so far.
        std::uint32_t misses() const noexcept { return misses_; }

      private:
        translation_cache& cache_;
        std::uint32_t misses_ = 0;
    };

    /// Drops every entry cached for token-table slot `index` (all key bytes).
    void invalidate_index(std::uint32_t index) noexcept;

    /// Drops every entry.
    void flush() noexcept;

    /// Total entries (sets * ways); 0 when disabled.
    std::uint32_t capacity() const noexcept { return sets_ * ways_; }

    /// Counter snapshot.
    cache_counters counters() const noexcept;

  private:
    struct entry {
        std::uint64_t page = 0;
        std::uint64_t pfn = 0;
        std::uint64_t epoch = 0;  // valid when equal to epoch_
        std::uint64_t last_use = 0;
        std::uint32_t token = 0;
    };

    // Valid entries whose slot index falls in this bucket; a count from an earlier epoch is 0.
    struct bucket {
        std::uint64_t epoch = 0;
        std::uint32_t count = 0;
    };

    bucket& bucket_of(std::uint32_t token) noexcept;
    void count_in(std::uint32_t token) noexcept;
    void count_out(std::uint32_t token, std::uint32_t n) noexcept;

    std::uint32_t sets_;
    std::uint32_t ways_;
    std::vector<entry> entries_;
    std::vector<bucket> buckets_;  // a power of two, at least twice the entries
    std::uint64_t epoch_ = 1;
    std::uint64_t clock_ = 0;
    // Changed only inside the memory unit's gate, one holder at a time, so they add with
    // util::single_writer_add; other threads read them with relaxed loads.
    std::atomic<std::uint64_t> hits_{0};
    std::atomic<std::uint64_t> misses_{0};
    std::atomic<std::uint64_t> stale_hits_{0};
    std::atomic<std::uint32_t> last_lookup_misses_{0};
};

}  // namespace ndksim::mem
