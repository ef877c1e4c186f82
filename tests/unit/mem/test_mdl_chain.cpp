// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <vector>

#include "mem/mdl_chain.hpp"
#include "mem/page.hpp"

namespace ndksim::mem {
namespace {

// PFN arrays large enough for any segment below; the values are arbitrary frame numbers.
const std::vector<std::uint64_t> k_pfns_a{0x100, 0x101, 0x102, 0x103};
const std::vector<std::uint64_t> k_pfns_b{0x200, 0x201, 0x202, 0x203};

mdl_segment seg(std::uint64_t va, std::uint32_t len, const std::vector<std::uint64_t>& pfns) {
    return mdl_segment{va, len, byte_offset(va), pfns};
}

TEST(MdlChain, SingleSegmentGivesPagesAndFbo) {
    const std::vector chain{seg(0x10100, 0x2000, k_pfns_a)};
    const chain_geometry g = chain_page_count(chain, 0x2000);
    EXPECT_EQ(g.st, status::success);
    EXPECT_EQ(g.virtual_address, 0x10100u);
    EXPECT_EQ(g.pages, 3u);
    EXPECT_EQ(g.fbo, 0x100u);
}

TEST(MdlChain, ChainNotVirtuallyContiguousIsInvalidParameter) {
    const std::vector chain{seg(0x10000, 0x1000, k_pfns_a), seg(0x12000, 0x1000, k_pfns_b)};
    EXPECT_EQ(check_chain(chain, 0x2000), status::invalid_parameter);
}

TEST(MdlChain, ContiguousChainIsValid) {
    const std::vector chain{seg(0x10000, 0x1800, k_pfns_a), seg(0x11800, 0x1000, k_pfns_b)};
    EXPECT_EQ(check_chain(chain, 0x2800), status::success);
}

TEST(MdlChain, SegmentsBeyondTheRequestedLengthAreNotChecked) {
    const std::vector chain{seg(0x10000, 0x1000, k_pfns_a), seg(0x50000, 0x1000, k_pfns_b)};
    EXPECT_EQ(check_chain(chain, 0x1000), status::success);
    EXPECT_EQ(check_chain(chain, 0x1001), status::invalid_parameter);
}

TEST(MdlChain, LengthBeyondTheChainTotalIsInvalidParameter) {
    const std::vector chain{seg(0x10000, 0x1000, k_pfns_a), seg(0x11000, 0x1000, k_pfns_b)};
    EXPECT_EQ(check_chain(chain, 0x2001), status::invalid_parameter);
}

TEST(MdlChain, EmptyChainOrZeroLengthIsInvalidParameter) {
    EXPECT_EQ(check_chain({}, 0x1000), status::invalid_parameter);
    const std::vector chain{seg(0x10000, 0x1000, k_pfns_a)};
    EXPECT_EQ(check_chain(chain, 0), status::invalid_parameter);
}

TEST(MdlChain, ByteOffsetDisagreeingWithTheAddressIsInvalidParameter) {
    std::vector chain{seg(0x10100, 0x100, k_pfns_a)};
    chain[0].byte_offset = 0;
    EXPECT_EQ(check_chain(chain, 0x100), status::invalid_parameter);
}

TEST(MdlChain, PfnArrayShorterThanTheSpannedPagesIsInvalidParameter) {
    const std::vector<std::uint64_t> one{0x100};
    const std::vector chain{seg(0x10800, 0x1000, one)};
    EXPECT_EQ(check_chain(chain, 0x1000), status::invalid_parameter);
}

TEST(MdlChain, FramesFollowTheSegmentsInOrder) {
    const std::vector chain{seg(0x10000, 0x2000, k_pfns_a), seg(0x12000, 0x1000, k_pfns_b)};
    std::vector<std::uint64_t> out(3);
    ASSERT_EQ(chain_frames(chain, 0x3000, out), status::success);
    EXPECT_EQ(out, (std::vector<std::uint64_t>{0x100, 0x101, 0x200}));
}

TEST(MdlChain, PageSharedBySegmentsAppearsOnce) {
    const std::vector<std::uint64_t> second{0x101, 0x300};
    const std::vector chain{seg(0x10000, 0x1800, k_pfns_a), seg(0x11800, 0x1000, second)};
    const chain_geometry g = chain_page_count(chain, 0x2800);
    ASSERT_EQ(g.pages, 3u);
    std::vector<std::uint64_t> out(g.pages);
    ASSERT_EQ(chain_frames(chain, 0x2800, out), status::success);
    EXPECT_EQ(out, (std::vector<std::uint64_t>{0x100, 0x101, 0x300}));
}

TEST(MdlChain, SharedPageWithDifferentFramesIsInvalidParameter) {
    const std::vector<std::uint64_t> second{0x999, 0x300};
    const std::vector chain{seg(0x10000, 0x1800, k_pfns_a), seg(0x11800, 0x1000, second)};
    std::vector<std::uint64_t> out(3);
    EXPECT_EQ(chain_frames(chain, 0x2800, out), status::invalid_parameter);
}

TEST(MdlChain, FramesStopAtTheRequestedLength) {
    const std::vector chain{seg(0x10000, 0x4000, k_pfns_a)};
    std::vector<std::uint64_t> out(2);
    ASSERT_EQ(chain_frames(chain, 0x1001, out), status::success);
    EXPECT_EQ(out, (std::vector<std::uint64_t>{0x100, 0x101}));
}

}  // namespace
}  // namespace ndksim::mem
