// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <vector>

#include "mem_test_support.hpp"

namespace ndksim::mem::test {
namespace {

class Lookup : public unit_test {
  protected:
    Lookup() : buf_(3 * page_size, 0x200), other_pd_(unit_.create_pd().id) {
        buf_.fill_pattern(11);
        va_ = fake_va(buf_.data(), 16);
        mr_ = registered(
            buf_.data(), static_cast<std::uint32_t>(buf_.size()),
            access_from_mr_flags(ndk_flags::mr_allow_local_write | ndk_flags::mr_allow_remote_read),
            va_);
        token_ = unit_.local_token(mr_);
    }

    guarded_buffer buf_;
    pd_id other_pd_;
    std::uint64_t va_ = 0;
    region_id mr_{};
    std::uint32_t token_ = 0;
};

TEST_F(Lookup, TokenNamingNoEntryIsUnknownToken) {
    EXPECT_EQ(look(0, access_op::local_read, va_, 1).failed, fault::unknown_token);
    EXPECT_EQ(look(0xFFFFFF00u, access_op::local_read, va_, 1).failed, fault::unknown_token);
    EXPECT_EQ(look(make_token(200, 0), access_op::local_read, va_, 1).failed, fault::unknown_token);
}

TEST_F(Lookup, KeyIsCheckedBeforeTheProtectionDomain) {
    const std::uint32_t stale = make_token(token_index(token_), next_key(token_key(token_)));
    EXPECT_EQ(look(stale, access_op::local_read, va_, 1, other_pd_).failed, fault::stale_token);
}

TEST_F(Lookup, ProtectionDomainIsCheckedBeforeRights) {
    EXPECT_EQ(look(token_, access_op::remote_write, va_, 1, other_pd_).failed, fault::wrong_pd);
}

TEST_F(Lookup, RightsAreCheckedBeforeState) {
    ASSERT_EQ(unit_.deregister_region(mr_), status::success);
    EXPECT_EQ(look(token_, access_op::remote_write, va_, 1).failed, fault::access_denied);
    EXPECT_EQ(look(token_, access_op::local_read, va_, 1).failed, fault::invalid_state);
}

TEST_F(Lookup, MissingRightIsAccessDenied) {
    EXPECT_EQ(look(token_, access_op::remote_write, va_, 1).failed, fault::access_denied);
    EXPECT_TRUE(look(token_, access_op::remote_read, va_, 1).ok());
}

TEST_F(Lookup, StateIsCheckedBeforeBounds) {
    guarded_buffer buf(2 * page_size);
    std::vector<std::uint64_t> pages;
    lam(buf.data(), 2 * page_size, pages);
    const region_id fr = unit_.create_region(pd_, region_kind::fast_register).id;
    ASSERT_EQ(unit_.initialize_fast_register(fr, 2, true), status::success);
    const fast_register_request rq{fr, pages, 0, 100, 0x1000, access::remote_read};
    const token_result t = unit_.post_fast_register(pd_, rq);
    ASSERT_EQ(unit_.execute_fast_register(pd_, rq, t.token), status::success);
    ASSERT_EQ(unit_.execute_invalidate(pd_, fr), status::success);
    EXPECT_EQ(look(t.token, access_op::remote_read, 0x900000, 1).failed, fault::invalid_state);
}

TEST_F(Lookup, RangesLeavingTheRegionAreOutOfBounds) {
    const std::uint64_t len = buf_.size();
    EXPECT_TRUE(look(token_, access_op::local_read, va_, len).ok());
    EXPECT_EQ(look(token_, access_op::local_read, va_ - 1, 1).failed, fault::out_of_bounds);
    EXPECT_EQ(look(token_, access_op::local_read, va_, len + 1).failed, fault::out_of_bounds);
    EXPECT_EQ(look(token_, access_op::local_read, va_ + len, 1).failed, fault::out_of_bounds);
    EXPECT_EQ(look(token_, access_op::local_read, va_ + 8, ~std::uint64_t{0}).failed,
              fault::out_of_bounds);
}

TEST_F(Lookup, ZeroLengthAccessInsideTheRegionSucceeds) {
    EXPECT_TRUE(look(token_, access_op::local_read, va_ + 5, 0).ok());
    EXPECT_TRUE(look(token_, access_op::local_read, va_ + buf_.size(), 0).ok());
}

TEST_F(Lookup, EveryFaultIsReportedAsAccessViolation) {
    for (const fault f :
         {fault::unknown_token, fault::stale_token, fault::wrong_pd, fault::access_denied,
          fault::invalid_state, fault::out_of_bounds, fault::unmapped}) {
        EXPECT_EQ(fault_status(f), status::access_violation) << fault_name(f);
    }
    EXPECT_EQ(fault_status(fault::none), status::success);
}

TEST_F(Lookup, GrantReachesExactlyTheRegisteredHostBytes) {
    const auto got = read_bytes(token_, access_op::local_read, va_ + 0xE00, 0x1400);
    EXPECT_EQ(std::memcmp(got.data(), buf_.data() + 0xE00, 0x1400), 0);
}

TEST_F(Lookup, HostRunCoversHostContiguousPagesInOneRun) {
    const read_guard g = unit_.read();
    const lookup_result r = unit_.lookup(g, {token_, pd_, access_op::local_read, va_, buf_.size()});
    ASSERT_TRUE(r.ok());
    const std::span<std::byte> run = unit_.host_run(g, r.range, 0, buf_.size());
    EXPECT_EQ(run.data(), buf_.data());
    EXPECT_EQ(run.size(), buf_.size());
    const std::span<std::byte> tail = unit_.host_run(g, r.range, 100, 50);
    EXPECT_EQ(tail.data(), buf_.data() + 100);
    EXPECT_EQ(tail.size(), 50u);
    EXPECT_TRUE(unit_.host_run(g, r.range, buf_.size(), 1).empty());
}

class Privileged : public Lookup {
  protected:
    Privileged() : lam_buf_(2 * page_size, 0x300) {
        lam_buf_.fill_pattern(21);
        lam_ = lam(lam_buf_.data(), 5000, pages_);
        priv_ = unit_.privileged_token(pd_);
    }
    guarded_buffer lam_buf_;
    std::vector<std::uint64_t> pages_;
    lam_result lam_;
    std::uint32_t priv_ = 0;
};

TEST_F(Privileged, TokenGrantsLocalReadAndWriteOfLogicalAddresses) {
    const std::uint64_t la = pages_[0] + 0x300;
    EXPECT_TRUE(look(priv_, access_op::local_write, la, 100).ok());
    const auto got = read_bytes(priv_, access_op::local_read, la + 4, 64);
    EXPECT_EQ(std::memcmp(got.data(), lam_buf_.data() + 4, 64), 0);
    EXPECT_TRUE(look(priv_, access_op::read_sink, la, 100).ok());
}

TEST_F(Privileged, TokenIsNeverUsableForRemoteAccess) {
    const std::uint64_t la = pages_[0] + 0x300;
    EXPECT_EQ(look(priv_, access_op::remote_read, la, 8).failed, fault::access_denied);
    const lookup_result w = look(priv_, access_op::remote_write, la, 8);
    EXPECT_EQ(w.failed, fault::access_denied);
    EXPECT_EQ(w.st(), status::access_violation);
}

TEST_F(Privileged, TokenOfAnotherPdIsRefused) {
    EXPECT_EQ(look(priv_, access_op::local_read, pages_[0] + 0x300, 8, other_pd_).failed,
              fault::wrong_pd);
    EXPECT_NE(unit_.privileged_token(other_pd_), priv_);
}

TEST_F(Privileged, VirtualAddressWithThePrivilegedTokenNeverTranslates) {
    EXPECT_EQ(look(priv_, access_op::local_read, lam_buf_.address(), 8).failed, fault::unmapped);
    EXPECT_EQ(look(priv_, access_op::local_read, va_, 8).failed, fault::unmapped);
}

TEST_F(Privileged, BytesOutsideTheMappedBufferAreUnmapped) {
    // The LAM starts 0x300 into its first page and ends 5000 bytes later, in its second page.
    EXPECT_EQ(look(priv_, access_op::local_read, pages_[0] + 0x2FF, 1).failed, fault::unmapped);
    const std::uint64_t end_in_page2 = (0x300 + 5000) - page_size;
    EXPECT_TRUE(look(priv_, access_op::local_read, pages_[1] + end_in_page2 - 1, 1).ok());
    EXPECT_EQ(look(priv_, access_op::local_read, pages_[1] + end_in_page2, 1).failed,
              fault::unmapped);
}

TEST_F(Privileged, AccessSpanningIntoAnUnmappedLogicalPageIsUnmapped) {
    std::vector<std::uint64_t> single;
    guarded_buffer one(page_size);
    const lam_result r = lam(one.data(), page_size, single);
    EXPECT_TRUE(look(priv_, access_op::local_read, single[0], page_size).ok());
    // The logical page after the LAM's last page is not mapped by anyone.
    EXPECT_EQ(look(priv_, access_op::local_read, single[0] + 8, page_size).failed, fault::unmapped);
    ASSERT_TRUE(unit_.release_lam(r.id));
    EXPECT_EQ(look(priv_, access_op::local_read, single[0], 8).failed, fault::unmapped);
}

TEST_F(Privileged, RegionInternalPagesAreNeverReachableWithThePrivilegedToken) {
    // The pages a normal registration maps stay inside its page list; walk the logical pages
    // next to the LAM's (the region's pages were mapped just before them).
    ASSERT_EQ(unit_.mapped_pages(), 4u + 2u);
    for (std::uint64_t k = 1; k <= 4; ++k) {
        EXPECT_EQ(look(priv_, access_op::local_read, pages_[0] - k * page_size, 8).failed,
                  fault::unmapped);
    }
}

TEST_F(Privileged, DestroyedPdTokenNeverMatchesAgain) {
    const pd_id extra = unit_.create_pd().id;
    const std::uint32_t token = unit_.privileged_token(extra);
    ASSERT_EQ(unit_.destroy_pd(extra), status::success);
    EXPECT_EQ(look(token, access_op::local_read, pages_[0] + 0x300, 8, extra).failed,
              fault::unknown_token);
    const pd_id again = unit_.create_pd().id;
    EXPECT_NE(unit_.privileged_token(again), token);
    EXPECT_FALSE(look(token, access_op::local_read, pages_[0] + 0x300, 8, again).ok());
}

}  // namespace
}  // namespace ndksim::mem::test
