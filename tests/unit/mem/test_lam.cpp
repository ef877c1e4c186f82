// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <vector>

#include "mem_test_support.hpp"

namespace ndksim::mem::test {
namespace {

using Lam = unit_test;

TEST_F(Lam, SizeQueryIsBufferTooSmallThenTheReturnedSizeSucceeds) {
    guarded_buffer buf(3 * page_size, 0x80);
    mdl_builder m(host_);
    m.add(buf.data(), static_cast<std::uint32_t>(buf.size()));
    const lam_result probe = unit_.build_lam(m.chain(), buf.size(), {});
    EXPECT_EQ(probe.st, status::buffer_too_small);
    EXPECT_EQ(probe.pages, 4u);
    EXPECT_EQ(probe.fbo, 0x80u);
    EXPECT_EQ(unit_.mapped_pages(), 0u);

    std::vector<std::uint64_t> short_array(probe.pages - 1);
    EXPECT_EQ(unit_.build_lam(m.chain(), buf.size(), short_array).st, status::buffer_too_small);

    std::vector<std::uint64_t> pages(probe.pages);
    const lam_result r = unit_.build_lam(m.chain(), buf.size(), pages);
    ASSERT_EQ(r.st, status::success);
    EXPECT_NE(r.id, lam_id::none);
    EXPECT_EQ(r.pages, 4u);
    EXPECT_EQ(r.fbo, 0x80u);
    EXPECT_EQ(unit_.mapped_pages(), 4u);
    EXPECT_TRUE(unit_.release_lam(r.id));
}

TEST_F(Lam, PageCountMatchesTheQueryFunction) {
    guarded_buffer buf(5000, 0xFF0);
    mdl_builder m(host_);
    m.add(buf.data(), 5000);
    const chain_geometry g = chain_page_count(m.chain(), 5000);
    EXPECT_EQ(g.pages, span_pages(buf.address(), 5000));
    std::vector<std::uint64_t> pages(g.pages);
    const lam_result r = unit_.build_lam(m.chain(), 5000, pages);
    EXPECT_EQ(r.pages, g.pages);
    EXPECT_TRUE(unit_.release_lam(r.id));
}

TEST_F(Lam, ChainNotContiguousIsInvalidParameterBeforeSizeNegotiation) {
    guarded_buffer a(page_size);
    guarded_buffer b(page_size);
    mdl_builder m(host_);
    m.add(a.data(), page_size).add(b.data(), page_size);
    EXPECT_EQ(unit_.build_lam(m.chain(), 2 * page_size, {}).st, status::invalid_parameter);
    std::vector<std::uint64_t> pages(2);
    EXPECT_EQ(unit_.build_lam(m.chain(), 2 * page_size, pages).st, status::invalid_parameter);
    EXPECT_EQ(unit_.mapped_pages(), 0u);
}

TEST_F(Lam, LengthBeyondTheChainIsInvalidParameter) {
    guarded_buffer buf(page_size);
    mdl_builder m(host_);
    m.add(buf.data(), page_size);
    std::vector<std::uint64_t> pages(2);
    EXPECT_EQ(unit_.build_lam(m.chain(), page_size + 1, pages).st, status::invalid_parameter);
}

TEST_F(Lam, ChainedMdlsMapAsOneRange) {
    guarded_buffer buf(3 * page_size);
    buf.fill_pattern(3);
    mdl_builder m(host_);
    m.add(buf.data(), 0x1800).add(buf.data() + 0x1800, 0x1800);
    std::vector<std::uint64_t> pages(3);
    const lam_result r = unit_.build_lam(m.chain(), 0x3000, pages);
    ASSERT_EQ(r.st, status::success);
    EXPECT_EQ(r.pages, 3u);
    const std::uint32_t priv = unit_.privileged_token(pd_);
    for (std::size_t i = 0; i < 3; ++i) {
        const auto got = read_bytes(priv, access_op::local_read, pages[i], page_size);
        EXPECT_EQ(std::memcmp(got.data(), buf.data() + i * page_size, page_size), 0);
    }
    EXPECT_TRUE(unit_.release_lam(r.id));
}

TEST_F(Lam, FailureLeavesNothingMapped) {
    unit_config cfg = default_config();
    cfg.max_mapped_pages = 5;
    translation_unit small(host_, cfg);
    guarded_buffer a(3 * page_size);
    guarded_buffer b(3 * page_size);
    mdl_builder ma(host_);
    ma.add(a.data(), 3 * page_size);
    mdl_builder mb(host_);
    mb.add(b.data(), 3 * page_size);
    std::vector<std::uint64_t> pa(3);
    std::vector<std::uint64_t> pb(3);
    const lam_result first = small.build_lam(ma.chain(), 3 * page_size, pa);
    ASSERT_EQ(first.st, status::success);
    const std::uint32_t pins_before = host_.pin_count(host_.pfn_of(b.data()));
    EXPECT_EQ(small.build_lam(mb.chain(), 3 * page_size, pb).st, status::insufficient_resources);
    EXPECT_EQ(small.mapped_pages(), 3u);
    EXPECT_EQ(host_.pin_count(host_.pfn_of(b.data())), pins_before);
    EXPECT_TRUE(small.release_lam(first.id));
    EXPECT_EQ(small.build_lam(mb.chain(), 3 * page_size, pb).st, status::success);
}

TEST_F(Lam, UnpinnedFrameInTheMdlIsInvalidParameter) {
    guarded_buffer buf(page_size);
    const std::vector<std::uint64_t> forged{0xBAD};
    const std::vector chain{mdl_segment{buf.address(), 100, byte_offset(buf.address()), forged}};
    std::vector<std::uint64_t> pages(1);
    EXPECT_EQ(unit_.build_lam(chain, 100, pages).st, status::invalid_parameter);
    EXPECT_EQ(unit_.mapped_pages(), 0u);
}

TEST_F(Lam, ReleaseUnmapsEveryPage) {
    guarded_buffer buf(2 * page_size);
    std::vector<std::uint64_t> pages;
    const lam_result r = lam(buf.data(), 2 * page_size, pages);
    const std::uint32_t priv = unit_.privileged_token(pd_);
    EXPECT_TRUE(look(priv, access_op::local_write, pages[1], 16).ok());
    EXPECT_TRUE(unit_.release_lam(r.id));
    EXPECT_EQ(unit_.mapped_pages(), 0u);
    EXPECT_EQ(look(priv, access_op::local_write, pages[0], 16).failed, fault::unmapped);
    EXPECT_EQ(look(priv, access_op::local_write, pages[1], 16).failed, fault::unmapped);
    EXPECT_FALSE(unit_.release_lam(r.id));
}

TEST_F(Lam, ReleasingAnUnknownLamDoesNothing) {
    EXPECT_FALSE(unit_.release_lam(lam_id{12345}));
}

TEST_F(Lam, LamTableFullIsInsufficientResources) {
    unit_config cfg = default_config();
    cfg.max_lams = 2;
    translation_unit small(host_, cfg);
    guarded_buffer buf(page_size);
    mdl_builder m(host_);
    m.add(buf.data(), 64);
    std::vector<std::uint64_t> pages(1);
    const lam_result a = small.build_lam(m.chain(), 64, pages);
    const lam_result b = small.build_lam(m.chain(), 64, pages);
    EXPECT_EQ(a.st, status::success);
    EXPECT_EQ(b.st, status::success);
    EXPECT_NE(a.id, b.id);
    EXPECT_EQ(small.build_lam(m.chain(), 64, pages).st, status::insufficient_resources);
    EXPECT_EQ(small.mapped_pages(), 2u);
}

TEST_F(Lam, UnitDestructionReleasesTheFramesOfLiveLams) {
    guarded_buffer buf(page_size);
    mdl_builder m(host_);
    m.add(buf.data(), 64);
    const std::uint64_t pfn = m.chain()[0].pfns[0];
    {
        translation_unit other(host_, default_config());
        std::vector<std::uint64_t> pages(1);
        ASSERT_EQ(other.build_lam(m.chain(), 64, pages).st, status::success);
        EXPECT_EQ(host_.pin_count(pfn), 2u);
    }
    EXPECT_EQ(host_.pin_count(pfn), 1u);
}

}  // namespace
}  // namespace ndksim::mem::test
