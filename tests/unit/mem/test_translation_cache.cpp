// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <vector>

#include "mem_test_support.hpp"

namespace ndksim::mem::test {
namespace {

bool touch(translation_cache& c, std::uint32_t token, std::uint64_t page, std::uint64_t pfn) {
    translation_cache::session s(c);
    return s.touch(token, page, pfn);
}

TEST(TranslationCache, FirstTouchMissesAndTheNextHits) {
    translation_cache c({4, 2});
    EXPECT_FALSE(touch(c, 0x100, 1, 0x500));
    EXPECT_TRUE(touch(c, 0x100, 1, 0x500));
    EXPECT_EQ(c.counters().hits, 1u);
    EXPECT_EQ(c.counters().misses, 1u);
}

TEST(TranslationCache, TokenAndPageBothFormTheTag) {
    translation_cache c({4, 2});
    touch(c, 0x100, 1, 0x500);
    EXPECT_FALSE(touch(c, 0x101, 1, 0x500));
    EXPECT_FALSE(touch(c, 0x100, 2, 0x501));
}

TEST(TranslationCache, LeastRecentlyUsedWayIsEvicted) {
    translation_cache c({1, 2});
    touch(c, 0x100, 1, 1);
    touch(c, 0x100, 2, 2);
    EXPECT_TRUE(touch(c, 0x100, 1, 1));   // page 2 is now the LRU way
    EXPECT_FALSE(touch(c, 0x100, 3, 3));  // evicts page 2
    EXPECT_TRUE(touch(c, 0x100, 1, 1));
    EXPECT_FALSE(touch(c, 0x100, 2, 2));
}

TEST(TranslationCache, DisabledCacheAlwaysMisses) {
    translation_cache c({0, 0});
    EXPECT_EQ(c.capacity(), 0u);
    EXPECT_FALSE(touch(c, 0x100, 1, 1));
    EXPECT_FALSE(touch(c, 0x100, 1, 1));
    EXPECT_EQ(c.counters().misses, 2u);
}

TEST(TranslationCache, CapacityIsSetsTimesWaysForAnySetCount) {
    translation_cache c({6, 3});
    EXPECT_EQ(c.capacity(), 18u);
}

TEST(TranslationCache, GeometryFromAnEntryCountKeepsThatManyEntries) {
    EXPECT_EQ(translation_cache(cache_geometry(4096)).capacity(), 4096u);
    EXPECT_EQ(translation_cache(cache_geometry(512)).capacity(), 512u);
    EXPECT_EQ(translation_cache(cache_geometry(1000)).capacity(), 1000u);
    EXPECT_EQ(translation_cache(cache_geometry(1001)).capacity(), 1000u);  // whole sets of 8
    EXPECT_EQ(translation_cache(cache_geometry(5)).capacity(), 5u);        // one set of 5 ways
    EXPECT_EQ(translation_cache(cache_geometry(0)).capacity(), 0u);
}

TEST(TranslationCache, AFullyAssociativeSmallCacheHoldsExactlyItsEntries) {
    translation_cache c(cache_geometry(3));
    for (std::uint64_t page = 0; page < 3; ++page) {
        EXPECT_FALSE(touch(c, 0x100, page, page));
    }
    for (std::uint64_t page = 0; page < 3; ++page) {
        EXPECT_TRUE(touch(c, 0x100, page, page));
    }
    EXPECT_FALSE(touch(c, 0x100, 3, 3));  // a fourth page evicts the least recently used
    EXPECT_FALSE(touch(c, 0x100, 0, 0));
}

TEST(TranslationCache, InvalidatingAnIndexDropsAllItsKeysOnly) {
    translation_cache c({8, 4});
    touch(c, make_token(5, 1), 0, 1);
    touch(c, make_token(5, 2), 0, 1);
    touch(c, make_token(6, 1), 0, 1);
    c.invalidate_index(5);
    EXPECT_FALSE(touch(c, make_token(5, 1), 0, 1));
    EXPECT_FALSE(touch(c, make_token(5, 2), 0, 1));
    EXPECT_TRUE(touch(c, make_token(6, 1), 0, 1));
}

// A 1 x 2 cache counts its entries in 4 buckets of slot indices: 1, 5 and 9 share one. Dropping
// one index must neither spare the entries of another index in its bucket (the count still says
// some are cached) nor disturb them; evictions and a flush keep the counts right.
TEST(TranslationCache, InvalidatingIndicesThatShareABucketDropsExactlyEach) {
    translation_cache c({1, 2});
    touch(c, make_token(1, 1), 0, 1);
    touch(c, make_token(5, 1), 0, 1);
    c.invalidate_index(9);  // same bucket, nothing of its own cached
    EXPECT_TRUE(touch(c, make_token(1, 1), 0, 1));
    EXPECT_TRUE(touch(c, make_token(5, 1), 0, 1));
    c.invalidate_index(1);
    EXPECT_TRUE(touch(c, make_token(5, 1), 0, 1));
    c.invalidate_index(5);
    EXPECT_FALSE(touch(c, make_token(5, 1), 0, 1));
    EXPECT_FALSE(touch(c, make_token(1, 1), 0, 1));  // evicts nothing: a way was free
    EXPECT_FALSE(touch(c, make_token(9, 1), 0, 1));  // evicts index 5's entry (the LRU way)
    c.invalidate_index(1);
    EXPECT_TRUE(touch(c, make_token(9, 1), 0, 1));
    EXPECT_FALSE(touch(c, make_token(1, 1), 0, 1));
    c.flush();
    touch(c, make_token(9, 1), 0, 1);
    c.invalidate_index(9);
    EXPECT_FALSE(touch(c, make_token(9, 1), 0, 1));
}

TEST(TranslationCache, FlushDropsEverything) {
    translation_cache c({8, 4});
    touch(c, 0x100, 0, 1);
    touch(c, 0x200, 0, 1);
    c.flush();
    EXPECT_FALSE(touch(c, 0x100, 0, 1));
    EXPECT_FALSE(touch(c, 0x200, 0, 1));
}

TEST(TranslationCache, HitWithADifferentFrameIsCountedAsStale) {
    translation_cache c({8, 4});
    touch(c, 0x100, 0, 1);
    EXPECT_TRUE(touch(c, 0x100, 0, 2));
    EXPECT_EQ(c.counters().stale_hits, 1u);
}

TEST(TranslationCache, SessionRecordsTheLookupsMissCount) {
    translation_cache c({8, 4});
    {
        translation_cache::session s(c);
        s.touch(0x100, 0, 1);
        s.touch(0x100, 1, 1);
        s.touch(0x100, 0, 1);
        EXPECT_EQ(s.misses(), 2u);
    }
    EXPECT_EQ(c.counters().last_lookup_misses, 2u);
}

using CacheInUnit = unit_test;

TEST_F(CacheInUnit, LookupMissesOncePerPageThenHits) {
    guarded_buffer buf(3 * page_size, 0x10);
    const region_id mr = registered(buf.data(), 3 * page_size, access::local_write);
    const std::uint32_t token = unit_.local_token(mr);
    const lookup_result first = look(token, access_op::local_read, buf.address(), 3 * page_size);
    EXPECT_EQ(first.cache_misses, 4u);
    EXPECT_EQ(unit_.cache_stats().last_lookup_misses, 4u);
    const lookup_result second = look(token, access_op::local_read, buf.address(), 3 * page_size);
    EXPECT_EQ(second.cache_misses, 0u);
    EXPECT_EQ(unit_.cache_stats().last_lookup_misses, 0u);
    EXPECT_EQ(unit_.cache_stats().hits, 4u);
}

TEST_F(CacheInUnit, ReRegistrationAndLamReleaseDropCachedTranslations) {
    guarded_buffer buf(page_size);
    const region_id mr = registered(buf.data(), 100, access::local_write);
    look(unit_.local_token(mr), access_op::local_read, buf.address(), 10);
    ASSERT_EQ(unit_.deregister_region(mr), status::success);
    mdl_builder m(host_);
    m.add(buf.data(), 100);
    ASSERT_EQ(unit_.register_region(mr, m.chain(), 100, access::local_write), status::success);
    EXPECT_EQ(look(unit_.local_token(mr), access_op::local_read, buf.address(), 10).cache_misses,
              1u);

    std::vector<std::uint64_t> pages;
    const lam_result l = lam(buf.data(), 100, pages);
    const std::uint32_t priv = unit_.privileged_token(pd_);
    EXPECT_EQ(look(priv, access_op::local_read, pages[0], 10).cache_misses, 1u);
    EXPECT_EQ(look(priv, access_op::local_read, pages[0], 10).cache_misses, 0u);
    ASSERT_TRUE(unit_.release_lam(l.id));
    lam(buf.data(), 100, pages);
    EXPECT_EQ(look(priv, access_op::local_read, pages[0], 10).cache_misses, 1u);
    EXPECT_EQ(unit_.cache_stats().stale_hits, 0u);
}

TEST_F(CacheInUnit, RefusedLookupBeforeTranslationTouchesNoEntry) {
    guarded_buffer buf(page_size);
    const region_id mr = registered(buf.data(), 100, access::local_write);
    const cache_counters before = unit_.cache_stats();
    EXPECT_FALSE(look(unit_.local_token(mr), access_op::remote_read, buf.address(), 10).ok());
    EXPECT_EQ(unit_.cache_stats().hits + unit_.cache_stats().misses, before.hits + before.misses);
}

class CacheGeometry : public unit_test, public ::testing::WithParamInterface<cache_config> {
  protected:
    static unit_config config() {
        unit_config cfg = default_config();
        cfg.cache = GetParam();
        return cfg;
    }
    CacheGeometry() : unit_test(config()) {}
};

TEST_P(CacheGeometry, MissesChangeCostNeverResults) {
    guarded_buffer buf(16 * page_size);
    buf.fill_pattern(77);
    const region_id mr = registered(buf.data(), 16 * page_size, access::local_write);
    const std::uint32_t token = unit_.local_token(mr);
    for (std::uint64_t round = 0; round < 3; ++round) {
        for (std::uint64_t off = 0; off < 16 * page_size; off += 3000) {
            const auto got = read_bytes(token, access_op::local_read, buf.address() + off, 1000);
            ASSERT_EQ(std::memcmp(got.data(), buf.data() + off, 1000), 0);
        }
    }
    const cache_counters c = unit_.cache_stats();
    EXPECT_GT(c.misses, 0u);
    EXPECT_EQ(c.stale_hits, 0u);
}

INSTANTIATE_TEST_SUITE_P(Sizes, CacheGeometry,
                         ::testing::Values(cache_config{0, 0}, cache_config{1, 1},
                                           cache_config{2, 2}, cache_config{64, 8}));

}  // namespace
}  // namespace ndksim::mem::test
