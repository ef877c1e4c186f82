// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <vector>

#include "mem_test_support.hpp"

namespace ndksim::mem::test {
namespace {

class Iommu : public ::testing::Test {
  protected:
    Iommu() : buf_(4 * page_size), pfns_(4) {
        EXPECT_EQ(host_.pin(buf_.data(), buf_.size(), pfns_), status::success);
    }
    ~Iommu() override { host_.unpin(pfns_); }

    host_memory host_;
    guarded_buffer buf_;
    std::vector<std::uint64_t> pfns_;
};

TEST_F(Iommu, LogicalAddressesAreDistinctFromVirtualAndPhysicalAddresses) {
    iommu mmu(host_, 64);
    std::vector<std::uint64_t> logical(4);
    ASSERT_EQ(mmu.map(pfns_, 0, 4 * page_size, mapping_use::lam, logical), status::success);
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(byte_offset(logical[i]), 0u);
        EXPECT_NE(logical[i], buf_.address() + i * page_size);
        EXPECT_NE(logical[i], pfns_[i] << page_shift);
        EXPECT_NE(page_number(logical[i]), pfns_[i]);
    }
    mmu.unmap(logical);
}

TEST_F(Iommu, MappedPageTranslatesToItsFrame) {
    iommu mmu(host_, 64);
    std::vector<std::uint64_t> logical(4);
    ASSERT_EQ(mmu.map(pfns_, 0, 4 * page_size, mapping_use::lam, logical), status::success);
    for (std::size_t i = 0; i < 4; ++i) {
        const iommu::page_mapping* m = mmu.translate(logical[i] + 0x123);
        ASSERT_NE(m, nullptr);
        EXPECT_EQ(m->pfn, pfns_[i]);
    }
    mmu.unmap(logical);
}

TEST_F(Iommu, AnAddressThatIsNotMappedNeverTranslates) {
    iommu mmu(host_, 64);
    std::vector<std::uint64_t> logical(1);
    ASSERT_EQ(mmu.map(std::span(pfns_.data(), 1), 0, page_size, mapping_use::lam, logical),
              status::success);
    EXPECT_EQ(mmu.translate(buf_.address()), nullptr);
    EXPECT_EQ(mmu.translate(pfns_[0] << page_shift), nullptr);
    EXPECT_EQ(mmu.translate(logical[0] + page_size), nullptr);
    EXPECT_EQ(mmu.translate(0), nullptr);
    EXPECT_EQ(mmu.translate(~std::uint64_t{0}), nullptr);
    mmu.unmap(logical);
}

TEST_F(Iommu, AddressOfAnotherAdapterNeverTranslates) {
    iommu a(host_, 64);
    iommu b(host_, 64);
    EXPECT_NE(a.unit_tag(), b.unit_tag());
    std::vector<std::uint64_t> la(1);
    std::vector<std::uint64_t> lb(1);
    ASSERT_EQ(a.map(std::span(pfns_.data(), 1), 0, page_size, mapping_use::lam, la),
              status::success);
    ASSERT_EQ(b.map(std::span(pfns_.data(), 1), 0, page_size, mapping_use::lam, lb),
              status::success);
    EXPECT_EQ(b.translate(la[0]), nullptr);
    EXPECT_EQ(a.translate(lb[0]), nullptr);
    a.unmap(la);
    b.unmap(lb);
}

TEST_F(Iommu, UnmappedAddressStaysDeadWhenItsSlotIsReused) {
    iommu mmu(host_, 1);
    std::vector<std::uint64_t> first(1);
    ASSERT_EQ(mmu.map(std::span(pfns_.data(), 1), 0, page_size, mapping_use::lam, first),
              status::success);
    mmu.unmap(first);
    EXPECT_EQ(mmu.translate(first[0]), nullptr);
    std::vector<std::uint64_t> second(1);
    ASSERT_EQ(mmu.map(std::span(pfns_.data() + 1, 1), 0, page_size, mapping_use::lam, second),
              status::success);
    EXPECT_NE(second[0], first[0]);
    EXPECT_EQ(mmu.translate(first[0]), nullptr);
    EXPECT_NE(mmu.translate(second[0]), nullptr);
    mmu.unmap(second);
}

TEST_F(Iommu, MappingPinsFramesAndUnmapReleasesThem) {
    iommu mmu(host_, 64);
    std::vector<std::uint64_t> logical(4);
    ASSERT_EQ(mmu.map(pfns_, 0, 4 * page_size, mapping_use::lam, logical), status::success);
    EXPECT_EQ(host_.pin_count(pfns_[2]), 2u);
    mmu.unmap(logical);
    EXPECT_EQ(host_.pin_count(pfns_[2]), 1u);
    mmu.unmap(logical);
    EXPECT_EQ(host_.pin_count(pfns_[2]), 1u);
}

TEST_F(Iommu, DestructionReleasesRemainingMappings) {
    {
        iommu mmu(host_, 64);
        std::vector<std::uint64_t> logical(4);
        ASSERT_EQ(mmu.map(pfns_, 0, 4 * page_size, mapping_use::lam, logical), status::success);
        EXPECT_EQ(host_.pin_count(pfns_[0]), 2u);
    }
    EXPECT_EQ(host_.pin_count(pfns_[0]), 1u);
}

TEST_F(Iommu, MapWithAnUnpinnedFrameMapsNothing) {
    iommu mmu(host_, 64);
    std::vector<std::uint64_t> bad = pfns_;
    bad[3] = 0xDEAD;
    std::vector<std::uint64_t> logical(4);
    EXPECT_EQ(mmu.map(bad, 0, 4 * page_size, mapping_use::lam, logical), status::invalid_parameter);
    EXPECT_EQ(mmu.mapped_pages(), 0u);
    EXPECT_EQ(host_.pin_count(pfns_[0]), 1u);
}

TEST_F(Iommu, MapBeyondCapacityIsInsufficientResourcesAndMapsNothing) {
    iommu mmu(host_, 3);
    std::vector<std::uint64_t> logical(4);
    EXPECT_EQ(mmu.map(pfns_, 0, 4 * page_size, mapping_use::lam, logical),
              status::insufficient_resources);
    EXPECT_EQ(mmu.mapped_pages(), 0u);
    EXPECT_EQ(host_.pin_count(pfns_[0]), 1u);
}

TEST_F(Iommu, MappingRecordsTheBytesItDescribes) {
    iommu mmu(host_, 64);
    std::vector<std::uint64_t> logical(3);
    // 0x100 bytes into the first page, ending 0x200 bytes into the third.
    ASSERT_EQ(mmu.map(std::span(pfns_.data(), 3), 0x100, 2 * page_size, mapping_use::lam, logical),
              status::success);
    EXPECT_EQ(mmu.translate(logical[0])->lo, 0x100);
    EXPECT_EQ(mmu.translate(logical[0])->hi, page_size);
    EXPECT_EQ(mmu.translate(logical[1])->lo, 0);
    EXPECT_EQ(mmu.translate(logical[1])->hi, page_size);
    EXPECT_EQ(mmu.translate(logical[2])->lo, 0);
    EXPECT_EQ(mmu.translate(logical[2])->hi, 0x100);
    mmu.unmap(logical);
}

TEST_F(Iommu, OnlyLamMappingsCountAsLamPages) {
    iommu mmu(host_, 64);
    std::vector<std::uint64_t> lam(1);
    std::vector<std::uint64_t> internal(1);
    ASSERT_EQ(mmu.map(std::span(pfns_.data(), 1), 0, page_size, mapping_use::lam, lam),
              status::success);
    ASSERT_EQ(mmu.map(std::span(pfns_.data(), 1), 0, page_size, mapping_use::region, internal),
              status::success);
    EXPECT_TRUE(mmu.is_lam_page(lam[0]));
    EXPECT_FALSE(mmu.is_lam_page(internal[0]));
    EXPECT_FALSE(mmu.is_lam_page(lam[0] + 8));
    EXPECT_EQ(mmu.translate(internal[0])->use, mapping_use::region);
    mmu.unmap(lam);
    mmu.unmap(internal);
}

TEST_F(Iommu, PageCountMustMatchTheMappedRange) {
    iommu mmu(host_, 64);
    std::vector<std::uint64_t> logical(4);
    EXPECT_EQ(mmu.map(pfns_, 0, page_size, mapping_use::lam, logical), status::invalid_parameter);
}

}  // namespace
}  // namespace ndksim::mem::test
