// SPDX-License-Identifier: MIT
#include "mem/translation_cache.hpp"

#include <algorithm>
#include <bit>

#include "mem/token.hpp"
#include "util/single_writer.hpp"

namespace ndksim::mem {
namespace {

std::uint64_t mix(std::uint32_t token, std::uint64_t page) noexcept {
    std::uint64_t x = (std::uint64_t{token} << 32) ^ page;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

}  // namespace

translation_cache::translation_cache(const cache_config& cfg)
    : sets_(cfg.sets == 0 || cfg.ways == 0 ? 0 : cfg.sets),
      ways_(sets_ == 0 ? 0 : cfg.ways),
      entries_(std::size_t{sets_} * ways_),
      buckets_(std::bit_ceil(std::max<std::size_t>(2 * entries_.size(), 1))) {}

translation_cache::bucket& translation_cache::bucket_of(std::uint32_t token) noexcept {
    return buckets_[token_index(token) & (buckets_.size() - 1)];
}

void translation_cache::count_in(std::uint32_t token) noexcept {
    bucket& b = bucket_of(token);
    if (b.epoch != epoch_) {
        b = bucket{epoch_, 0};
    }
    ++b.count;
}

void translation_cache::count_out(std::uint32_t token, std::uint32_t n) noexcept {
    bucket& b = bucket_of(token);
    if (b.epoch == epoch_) {
        b.count -= n;
    }
}

translation_cache::session::session(translation_cache& cache) : cache_(cache) {}

translation_cache::session::~session() {
    cache_.last_lookup_misses_.store(misses_, std::memory_order_relaxed);
}

bool translation_cache::session::touch(std::uint32_t token, std::uint64_t page,
                                       std::uint64_t pfn) noexcept {
    translation_cache& c = cache_;
    const std::uint64_t now = ++c.clock_;
    if (c.sets_ == 0) {
        ++misses_;
        util::single_writer_add(c.misses_);
        return false;
    }
    // Any set count: a profile sizes the cache in entries, not in powers of two.
    entry* set = &c.entries_[(mix(token, page) % c.sets_) * c.ways_];
    entry* victim = set;
    for (std::uint32_t w = 0; w < c.ways_; ++w) {
        entry& e = set[w];
        if (e.epoch == c.epoch_ && e.token == token && e.page == page) {
            if (e.pfn != pfn) {
                util::single_writer_add(c.stale_hits_);
                e.pfn = pfn;
            }
            e.last_use = now;
            util::single_writer_add(c.hits_);
            return true;
        }
        const bool e_free = e.epoch != c.epoch_;
        const bool v_free = victim->epoch != c.epoch_;
        if (!v_free && (e_free || e.last_use < victim->last_use)) {
            victim = &e;
        }
    }
    if (victim->epoch == c.epoch_) {
        c.count_out(victim->token, 1);
    }
    *victim = entry{page, pfn, c.epoch_, now, token};
    c.count_in(token);
    ++misses_;
    util::single_writer_add(c.misses_);
    return false;
}

void translation_cache::invalidate_index(std::uint32_t index) noexcept {
    const std::uint32_t any_token = make_token(index, 0);
    const bucket& b = bucket_of(any_token);
    if (b.epoch != epoch_ || b.count == 0) {
        return;  // nothing cached for any slot of this bucket
    }
    std::uint32_t dropped = 0;
    for (entry& e : entries_) {
        if (e.epoch == epoch_ && token_index(e.token) == index) {
            e.epoch = 0;
            ++dropped;
        }
    }
    count_out(any_token, dropped);
}

void translation_cache::flush() noexcept {
    ++epoch_;
}

cache_counters translation_cache::counters() const noexcept {
    return cache_counters{hits_.load(std::memory_order_relaxed),
                          misses_.load(std::memory_order_relaxed),
                          stale_hits_.load(std::memory_order_relaxed),
                          last_lookup_misses_.load(std::memory_order_relaxed)};
}

}  // namespace ndksim::mem
